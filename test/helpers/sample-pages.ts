/** Generated ~10 KB test pages, shared by the tests and scripts/bench-throughput.ts (which times the same inputs). */

/** A realistic ~10 KB page: head with meta, a nav of links, paragraphs in English and Chinese, a table. */
export function samplePage(bytes = 10_000): string {
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tobacco control news</title>
<meta name="robots" content="index,follow"><link rel="canonical" href="/news/1"><style>body{font:14px sans-serif}</style>
<script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}</script></head><body><header><nav><ul>`;
  const parts: string[] = [head];
  for (let i = 0; i < 20; i++) parts.push(`<li><a href="/section/${i}" class="nav">Section ${i}</a></li>`);
  parts.push('</ul></nav></header><main><h1>Tobacco <em>control</em> news</h1>');
  let i = 0;
  while (parts.join('').length < bytes - 200) {
    parts.push(`<h2>Part ${i}</h2><p>The tobacco industry and <a href="/story/${i}?ref=body">nicotine products</a> were discussed.
中国烟草总公司负责卷烟的生产与销售，吸烟有害健康。 <b>Smoking</b> rates fell in ${2000 + i}.</p>
<table><tr><td>${i}</td><td>cell <i>text</i></td></tr></table><img src="/i/${i}.png" alt="figure ${i}">`);
    i++;
  }
  parts.push('</main><footer><p>&copy; Example</p></footer></body></html>');
  return parts.join('');
}

/** ~10 KB of page text (UTF-8), half English, half traditional Chinese, a keyword in every clause. */
export function mixedPage(): string {
  const en = 'The tobacco industry marketed cigarettes and nicotine patches to smokers around the world for decades. ';
  const zh = '中國煙草總公司是國家菸草專賣局的下屬機構，負責捲煙的生產與銷售。吸菸有害健康，請勿在公共場所吸菸。';
  let s = '';
  while (Buffer.byteLength(s) < 10_000) s += en + zh;
  return s;
}

const GENERIC = [
  '今年以来，各地积极推进产业结构调整，重点企业的生产经营保持平稳增长。',
  '据统计，上半年全国社会消费品零售总额同比增长百分之五点二，市场需求逐步恢复。',
  '专家表示，数字化转型不仅提高了生产效率，也让质量管理更加精准。',
  '在物流配送环节，企业通过优化线路和仓储布局，进一步降低了运输成本。',
  '与此同时，农业部门加强了对种植户的技术指导，帮助农民提高收入。',
  '业内人士认为，未来几年行业发展仍面临原材料价格波动和国际贸易环境变化等挑战。',
  '该公司负责人介绍说，新建的生产线采用了先进的自动化设备，年产能可达十万箱。',
  '记者在现场看到，工人们正在有条不紊地进行设备调试和产品检验。',
  '下一步，有关部门将继续完善监管制度，加大对违法经营行为的查处力度。',
  '为了保护消费者的合法权益，市场监督管理部门开展了专项检查行动。',
];
const CITIES = '北京 上海 天津 重庆 广州 深圳 杭州 南京 武汉 成都 西安 长沙 郑州 济南 青岛 大连 沈阳 哈尔滨 长春 昆明'.split(' ');
/** Keyword sentences; the city makes every clause with a keyword unique on the page (no memo hits). */
const ON_TOPIC = [
  (c: string) => `${c}烟草专卖局发布通知，要求${c}加强卷烟市场监管。`,
  (c: string) => `${c}是我国重要的烟草种植基地，${c}烟叶质量享有盛誉。`,
  (c: string) => `${c}卫生部门指出吸烟有害健康，${c}公共场所应当全面禁止吸烟。`,
  (c: string) => `${c}的这批烟草原料经过严格筛选后运往${c}卷烟厂加工。`,
  (c: string) => `${c}煙草公司表示，${c}今年捲煙銷售保持穩定。`,
];

/** ~10 KB on-topic simplified Chinese news page (a little traditional), a keyword sentence every 8th. */
export function chinesePage(): string {
  let s = '';
  for (let k = 0, g = 0; Buffer.byteLength(s) < 10_000; k++) {
    for (let i = 0; i < 7; i++) s += GENERIC[g++ % GENERIC.length];
    s += ON_TOPIC[k % ON_TOPIC.length](CITIES[k % CITIES.length]) + '\n';
  }
  return s;
}
