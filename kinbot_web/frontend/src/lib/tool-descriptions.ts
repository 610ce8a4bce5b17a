/**
 * A tool call in plain words: the i18n key (under `cards.tool`) and its parameters for each
 * built-in tool, from the call's name and arguments. Ids in the arguments (a Kin's, a task's,
 * a memory's) never become parameters; secrets' values are never among the arguments read.
 */

/** What `t()` needs to say what a call did. */
export interface ToolDescription {
  key: string;
  /** Text from the arguments, as is. */
  params: Record<string, string>;
  /** Parameters that are i18n keys themselves (translated before use). */
  keyParams?: Record<string, string>;
}

type Args = Record<string, unknown>;
type Describe = (args: Args) => ToolDescription;

/** Longest text quoted from an argument before it is cut with an ellipsis. */
export const QUOTE_LIMIT = 90;

/** `value` as one line of at most QUOTE_LIMIT characters ("" when it is not text). */
export function quote(value: unknown): string {
  if (typeof value !== "string" && typeof value !== "number") return "";
  const line = String(value).replace(/\s+/g, " ").trim();
  return line.length > QUOTE_LIMIT ? `${line.slice(0, QUOTE_LIMIT - 1).trimEnd()}…` : line;
}

function key(name: string, params: Record<string, string> = {}): ToolDescription {
  return { key: `cards.tool.${name}`, params };
}

/** A call quoting one argument; without it, `fallback` (a sentence without the quote). */
function quoting(name: string, param: string, argument: string = param, fallback?: string): Describe {
  return (args) => {
    const text = quote(args[argument]);
    if (!text && fallback) return key(fallback);
    return key(name, { [param]: text || "…" });
  };
}

/** The site of an http(s) address, without its path (what a person recognises). */
function site(url: unknown): string {
  if (typeof url !== "string") return "…";
  try {
    return new URL(url).hostname.replace(/^www\./, "") || "…";
  } catch {
    return "…";
  }
}

/** The last part of a path or a repository address ("soup/notes.md" → "notes.md" stays whole). */
function repository(url: unknown): string {
  if (typeof url !== "string") return "…";
  const parts = url.replace(/\.git\/?$/, "").split("/").filter(Boolean);
  return quote(parts.slice(-2).join("/")) || "…";
}

const TASK_STATUSES = new Set(["in_progress", "completed", "failed"]);

const TOOLS: Record<string, Describe> = {
  // Memory
  recall: quoting("recall", "query"),
  memorize: quoting("memorize", "content"),
  update_memory: quoting("update_memory", "content", "new_content", "forget"),
  forget: () => key("forget"),
  list_memories: (args) => (quote(args.subject) ? key("list_memories_about", { subject: quote(args.subject) }) : key("list_memories")),
  search_history: quoting("search_history", "query"),
  // The web
  web_search: quoting("web_search", "query"),
  fetch_page: (args) => key("fetch_page", { site: site(args.url) }),
  // Tasks
  spawn_self: quoting("spawn_self", "task", "task_description"),
  spawn_kin: quoting("spawn_kin", "task", "task_description"),
  respond_to_task: quoting("respond_to_task", "answer"),
  cancel_task: () => key("cancel_task"),
  list_tasks: () => key("list_tasks"),
  report_to_parent: quoting("report_to_parent", "message"),
  update_task_status: (args) => {
    const status = typeof args.status === "string" && TASK_STATUSES.has(args.status) ? args.status : "in_progress";
    return { key: "cards.tool.update_task_status", params: {}, keyParams: { status: `cards.tool.taskStatus.${status}` } };
  },
  request_input: quoting("request_input", "question"),
  // Other Kins
  send_message: (args) => key(args.type === "request" ? "send_request" : "send_message", { message: quote(args.message) || "…" }),
  reply: quoting("reply", "message"),
  list_kins: () => key("list_kins"),
  // People away (its words live with the notifications' strings)
  notify: (args) => ({ key: "notifications.toolCall", params: { title: quote(args.title) || "…" } }),
  // Crons
  create_cron: quoting("create_cron", "name"),
  update_cron: () => key("update_cron"),
  delete_cron: () => key("delete_cron"),
  list_crons: () => key("list_crons"),
  // The Vault: only a secret's key, never a value
  get_secret: quoting("get_secret", "key"),
  store_secret: quoting("store_secret", "key"),
  redact_message: () => key("redact_message"),
  // Contacts
  get_contact: () => key("get_contact"),
  search_contacts: quoting("search_contacts", "query"),
  create_contact: quoting("create_contact", "name"),
  update_contact: () => key("update_contact"),
  // The workspace
  list_files: () => key("list_files"),
  read_file: quoting("read_file", "path"),
  write_file: quoting("write_file", "path"),
  delete_file: quoting("delete_file", "path"),
  download_file: (args) => key("download_file", { path: quote(args.path) || site(args.url) }),
  git_clone: (args) => key("git_clone", { repository: repository(args.url) }),
  save_attachment: quoting("save_attachment", "file"),
  // Custom tools
  register_tool: quoting("register_tool", "name"),
  run_custom_tool: quoting("run_custom_tool", "name", "tool_name"),
  list_custom_tools: () => key("list_custom_tools"),
  update_custom_tool: quoting("update_custom_tool", "name"),
  delete_custom_tool: quoting("delete_custom_tool", "name"),
  // Images
  generate_image: quoting("generate_image", "prompt"),
};

/** The tool names this table describes (the built-in tools). */
export const DESCRIBED_TOOLS: readonly string[] = Object.keys(TOOLS);

/** A tool's name as people read it: "search_recipes" → "search recipes". */
export function readableName(name: string): string {
  return name.replace(/[_-]+/g, " ").trim() || name;
}

/**
 * How to say what a call of tool `name` with `args` did. An MCP server's tool
 * (`<server>__<tool>`) names the tool and its server; any other tool is "Used a tool: <name>".
 */
export function describeToolCall(name: string, args: unknown): ToolDescription {
  const values: Args = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Args) : {};
  const describe = Object.prototype.hasOwnProperty.call(TOOLS, name) ? TOOLS[name] : undefined;
  if (describe) return describe(values);
  const separator = name.indexOf("__");
  if (separator > 0 && separator < name.length - 2) {
    return key("mcp", { tool: readableName(name.slice(separator + 2)), server: readableName(name.slice(0, separator)) });
  }
  return key("unknown", { name: readableName(name) });
}
