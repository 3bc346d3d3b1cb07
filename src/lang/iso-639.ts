/**
 * ISO 639-3 → ISO 639-1 for the languages franc-min names (and a few it finds by script alone),
 * so that every detector's answer reads as the two-letter codes of `scope.languages` (zh, en, …).
 * Macrolanguage members map to their macrolanguage's code (cmn → zh, arb → ar, pes → fa, zlm → ms,
 * uzn → uz, azj → az, swh → sw, npi → ne, plt → mg). Languages without a two-letter code
 * (fuv, hms, hnj, …) are absent: a caller keeps the three-letter code.
 */
export const ISO_639_3_TO_1: Readonly<Record<string, string>> = Object.freeze({
  cmn: 'zh', zho: 'zh', yue: 'zh', wuu: 'zh', eng: 'en', spa: 'es', por: 'pt', ind: 'id', fra: 'fr', deu: 'de', jav: 'jv',
  vie: 'vi', ita: 'it', tur: 'tr', pol: 'pl', swh: 'sw', sun: 'su', ron: 'ro', hau: 'ha', bos: 'bs', hrv: 'hr', nld: 'nl',
  srp: 'sr', yor: 'yo', uzn: 'uz', zlm: 'ms', ibo: 'ig', tgl: 'tl', hun: 'hu', azj: 'az', ces: 'cs', run: 'rn', plt: 'mg',
  nya: 'ny', kin: 'rw', zul: 'zu', swe: 'sv', lin: 'ln', som: 'so', rus: 'ru', ukr: 'uk', bel: 'be', bul: 'bg', kaz: 'kk',
  arb: 'ar', urd: 'ur', pes: 'fa', pbu: 'ps', hin: 'hi', mar: 'mr', npi: 'ne', jpn: 'ja', kor: 'ko', tha: 'th', ell: 'el',
  heb: 'he', kat: 'ka', hye: 'hy', ben: 'bn', tam: 'ta', tel: 'te', kan: 'kn', mal: 'ml', guj: 'gu', pan: 'pa', ori: 'or',
  sin: 'si', khm: 'km', lao: 'lo', mya: 'my', amh: 'am', tir: 'ti', bod: 'bo', div: 'dv', ckb: 'ku', fin: 'fi', dan: 'da',
  nob: 'no', slk: 'sk', slv: 'sl', lit: 'lt', lav: 'lv', est: 'et', cat: 'ca', glg: 'gl', eus: 'eu', afr: 'af', mkd: 'mk',
  sqi: 'sq', isl: 'is', gle: 'ga', cym: 'cy', mlt: 'mt', lat: 'la', epo: 'eo', ceb: 'ceb',
});
