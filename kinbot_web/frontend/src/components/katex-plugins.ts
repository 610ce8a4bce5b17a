/**
 * Math in messages: remark-math reads `$…$` and `$$…$$`, rehype-katex typesets them with KaTeX
 * (HTML for the eye, MathML for screen readers). Its own chunk, with KaTeX's style sheet and
 * fonts, loaded by the Markdown renderer only once a message holds math.
 */
import "katex/dist/katex.min.css";

import rehypeKatex from "rehype-katex";
import remarkMath from "remark-math";

export { rehypeKatex, remarkMath };

/**
 * KaTeX's options: no `\href`, `\url`, `\includegraphics` or `\html…` (trust stays off), bounded
 * macro expansion and sizes, so a message cannot make links, load images or freeze the page.
 */
export const katexOptions = { trust: false, strict: "ignore", maxExpand: 500, maxSize: 50 } as const;
