/**
 * Message text as GitHub-flavoured Markdown (tables, task lists, strikethrough, bare URL links,
 * footnotes) and math, sanitised by GitHub's schema: no raw HTML, no scripts, no event handlers,
 * only safe URL protocols, task-list boxes disabled. Code blocks show their language and a copy
 * button; links open safely in a new tab. Loaded lazily with the chat, so the first page stays
 * small; highlight.js is loaded only once a message holds a fenced code block, and KaTeX (its
 * script, style sheet and fonts) only once a message holds math.
 */
import type { Element, ElementContent } from "hast";
import * as React from "react";
import { useTranslation } from "react-i18next";
import ReactMarkdown, { defaultUrlTransform, type Components, type Options } from "react-markdown";
import rehypeSanitize, { defaultSchema } from "rehype-sanitize";
import remarkBreaks from "remark-breaks";
import remarkGfm from "remark-gfm";

import { CodeBlock } from "@/components/chat/code-block";

type Pluggable = NonNullable<Options["rehypePlugins"]>[number];

/** A plugin set imported on first need, then kept for every later message. */
function lazy<T>(load: () => Promise<T>) {
  let value: T | null = null;
  let loading: Promise<T> | null = null;
  return {
    current: () => value,
    load: () => (loading ??= load().then((loaded) => (value = loaded))),
  };
}

const highlighter = lazy(() =>
  import("rehype-highlight").then(({ default: rehypeHighlight }): Pluggable => [rehypeHighlight, { detect: false, ignoreMissing: true }]),
);

const math = lazy(() =>
  import("./katex-plugins").then(({ remarkMath, rehypeKatex, katexOptions }) => ({
    remark: remarkMath as Pluggable,
    rehype: [rehypeKatex, katexOptions] as Pluggable,
  })),
);

/** Whether `text` holds a fenced code block (the only code highlighted: it names a language). */
export function hasFencedCode(text: string): boolean {
  return text.includes("```") || text.includes("~~~");
}

// `$$…$$`; a ```math fence; `$…$` the way Pandoc reads it (no space inside the dollars, no digit
// right after the closing one), so "from $5 to $10" is not math.
const DISPLAY_MATH = /\$\$[\s\S]+?\$\$/;
const MATH_FENCE = /(^|\n)\s*(```|~~~)\s*math\b/;
const INLINE_MATH = /(^|[^\\$])\$(?=[^\s$])[^$\n]*?[^\s\\$]\$(?!\d)/;

/** Whether `text` holds math, which loads KaTeX and turns on the `$` syntax for this text. */
export function hasMath(text: string): boolean {
  return text.includes("$") ? DISPLAY_MATH.test(text) || INLINE_MATH.test(text) || MATH_FENCE.test(text) : MATH_FENCE.test(text);
}

/** The plugin set once loaded, loading it when `needed`; null until then (and when not needed). */
function useLazy<T>(plugin: ReturnType<typeof lazy<T>>, needed: boolean): T | null {
  const [loaded, setLoaded] = React.useState<T | null>(() => plugin.current());
  React.useEffect(() => {
    if (!needed || loaded) return;
    let mounted = true;
    void plugin.load().then((value) => mounted && setLoaded(() => value));
    return () => {
      mounted = false;
    };
  }, [plugin, needed, loaded]);
  return needed ? loaded : null;
}

/**
 * GitHub's schema, plus the classes the later plugins read (`language-*` for highlight.js and
 * KaTeX, `math-*` from remark-math) and write (`hljs-*`). Ids and ARIA references get `prefix`,
 * unique to the message, so two messages' footnotes never share an id.
 */
function schemaFor(prefix: string) {
  return {
    ...defaultSchema,
    clobberPrefix: prefix,
    attributes: {
      ...defaultSchema.attributes,
      code: [...(defaultSchema.attributes?.code ?? []), ["className", /^language-./, "math-inline", "math-display"]],
      span: [...(defaultSchema.attributes?.span ?? []), ["className", /^hljs-./]],
    },
  };
}

/** The text of a hast node, as written (code keeps its spaces and line breaks). */
function textOf(node: Element | ElementContent): string {
  if (node.type === "text") return node.value;
  if (node.type === "element") return node.children.map(textOf).join("");
  return "";
}

/** The language a code element names through its `language-*` class, if any. */
function languageOf(code: Element): string | null {
  const classes = code.properties.className;
  const found = Array.isArray(classes) ? classes.find((name) => String(name).startsWith("language-")) : undefined;
  return found ? String(found).slice("language-".length) : null;
}

/** The element renderers, for a message whose ids carry `prefix`. */
function useComponents(prefix: string): Components {
  const { t } = useTranslation();
  return React.useMemo<Components>(
    () => ({
      a: ({ node: _node, href, children, ...props }) =>
        href?.startsWith("#") ? (
          // A footnote's reference or back link: its target's id was prefixed by the sanitiser.
          <a {...props} href={`#${prefix}${href.slice(1)}`}>
            {children}
          </a>
        ) : (
          <a {...props} href={href} target="_blank" rel="noopener noreferrer nofollow">
            {children}
          </a>
        ),
      pre: ({ node, children }) => {
        const code = node?.children.find((child): child is Element => child.type === "element" && child.tagName === "code");
        if (!code) return <pre>{children}</pre>;
        return (
          <CodeBlock language={languageOf(code)} code={textOf(code).replace(/\n$/, "")}>
            {children}
          </CodeBlock>
        );
      },
      table: ({ node: _node, ...props }) => (
        // Scrolls sideways on a phone; focusable so the keyboard can scroll it too.
        <div className="markdown-table" role="group" aria-label={t("markdown.table")} tabIndex={0}>
          <table {...props} />
        </div>
      ),
      input: ({ node: _node, type, checked }) =>
        type === "checkbox" ? (
          <input type="checkbox" checked={Boolean(checked)} disabled readOnly aria-label={checked ? t("markdown.taskDone") : t("markdown.taskOpen")} />
        ) : null,
    }),
    [prefix, t],
  );
}

/**
 * Render `text` as sanitised Markdown. `breaks`: every line break is kept, as a person (or a
 * service) who wrote lines one under another meant them; a Kin's Markdown is read as written.
 */
export default function Markdown({ text, breaks = false }: { text: string; breaks?: boolean }) {
  const { t } = useTranslation();
  const highlight = useLazy(highlighter, hasFencedCode(text));
  const mathPlugins = useLazy(math, hasMath(text));
  const prefix = `m${React.useId().replace(/[^a-zA-Z0-9]/g, "")}-`;
  const schema = React.useMemo(() => schemaFor(prefix), [prefix]);
  const components = useComponents(prefix);
  // Sanitise first; KaTeX and highlight.js then only typeset what the sanitiser kept.
  const rehypePlugins: Pluggable[] = [[rehypeSanitize, schema]];
  if (mathPlugins) rehypePlugins.push(mathPlugins.rehype);
  if (highlight) rehypePlugins.push(highlight);
  return (
    <div className="markdown">
      <ReactMarkdown
        skipHtml
        urlTransform={defaultUrlTransform}
        remarkPlugins={[remarkGfm, ...(breaks ? [remarkBreaks] : []), ...(mathPlugins ? [mathPlugins.remark] : [])]}
        remarkRehypeOptions={{
          clobberPrefix: "",
          footnoteLabel: t("markdown.footnotes"),
          footnoteBackLabel: (reference, rereference) =>
            t("markdown.backToReference", { reference: rereference > 1 ? `${reference + 1}-${rereference}` : reference + 1 }),
        }}
        rehypePlugins={rehypePlugins}
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
