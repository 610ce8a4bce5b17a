/**
 * Message text as Markdown: GitHub's sanitising schema (no raw HTML, no scripts, no event
 * handlers, only safe URL protocols), code highlighted by highlight.js, links opening safely in
 * a new tab. Loaded lazily with the chat, so the first page stays small.
 */
import ReactMarkdown, { defaultUrlTransform, type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import rehypeSanitize, { defaultSchema } from "rehype-sanitize";

// highlight.js marks tokens with `hljs-*` classes: let those through the sanitiser, nothing else.
const schema = {
  ...defaultSchema,
  attributes: {
    ...defaultSchema.attributes,
    code: [...(defaultSchema.attributes?.code ?? []), ["className", /^language-./]],
    span: [...(defaultSchema.attributes?.span ?? []), ["className", /^hljs-./]],
  },
};

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  ),
};

/** Render `text` as sanitised Markdown. */
export default function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        skipHtml
        urlTransform={defaultUrlTransform}
        // Sanitise first, then highlight: the highlighter only adds hljs spans to code.
        rehypePlugins={[[rehypeSanitize, schema], [rehypeHighlight, { detect: false, ignoreMissing: true }]]}
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
