/**
 * Message text as Markdown: GitHub's sanitising schema (no raw HTML, no scripts, no event
 * handlers, only safe URL protocols), code highlighted by highlight.js, links opening safely in
 * a new tab. Loaded lazily with the chat, so the first page stays small; highlight.js, the
 * larger half, is loaded only once a message holds a fenced code block.
 */
import * as React from "react";
import ReactMarkdown, { defaultUrlTransform, type Components, type Options } from "react-markdown";
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

type Pluggable = NonNullable<Options["rehypePlugins"]>[number];

let highlighter: Pluggable | null = null;
let loadingHighlighter: Promise<void> | null = null;

function loadHighlighter(): Promise<void> {
  loadingHighlighter ??= import("rehype-highlight").then(({ default: rehypeHighlight }) => {
    highlighter = [rehypeHighlight, { detect: false, ignoreMissing: true }];
  });
  return loadingHighlighter;
}

/** Whether `text` holds a fenced code block (the only code highlighted: it names a language). */
function hasFencedCode(text: string): boolean {
  return text.includes("```") || text.includes("~~~");
}

/** The highlighter once loaded, loading it when `text` needs it; null until then. */
function useHighlighter(text: string): Pluggable | null {
  const needed = hasFencedCode(text);
  const [loaded, setLoaded] = React.useState<Pluggable | null>(() => highlighter);
  React.useEffect(() => {
    if (!needed || loaded) return;
    let mounted = true;
    void loadHighlighter().then(() => mounted && setLoaded(() => highlighter));
    return () => {
      mounted = false;
    };
  }, [needed, loaded]);
  return needed ? loaded : null;
}

/** Render `text` as sanitised Markdown. */
export default function Markdown({ text }: { text: string }) {
  const highlight = useHighlighter(text);
  return (
    <div className="markdown">
      <ReactMarkdown
        skipHtml
        urlTransform={defaultUrlTransform}
        // Sanitise first, then highlight: the highlighter only adds hljs spans to code.
        rehypePlugins={highlight ? [[rehypeSanitize, schema], highlight] : [[rehypeSanitize, schema]]}
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
