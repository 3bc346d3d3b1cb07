/** Types for natural's English stop word list (imported by path: the package root is too heavy). */
declare module 'natural/lib/natural/util/stopwords.js' {
  /** Lower-cased English stop words (includes single letters and digits). */
  export const words: string[];
}
