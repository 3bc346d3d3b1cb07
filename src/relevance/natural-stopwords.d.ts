/** Types for natural's English stop word list (imported by path: the package root is too heavy). */
declare module 'natural/lib/natural/util/stopwords.js' {
  /** Lower-cased English stop words (includes single letters and digits). */
  export const words: string[];
}

/** Types for natural's Porter stemmer alone (its stemmers' index loads every language's: ~70 modules, ~70 ms). */
declare module 'natural/lib/natural/stemmers/porter_stemmer.js' {
  const PorterStemmer: { stem(token: string): string };
  export default PorterStemmer;
}
