/** English strings (the reference: fr.ts must have the same keys). */
import { en as backgroundModels } from "./background-models";
import { en as backups } from "./backups";
import { en as contextWindow } from "./context-window";
import { en as cards } from "./cards";
import { en as channelProblems } from "./channel-problems";
import { en as channels } from "./channels";
import { en as chatflow } from "./chatflow";
import { en as crons } from "./crons";
import { en as kinFiles } from "./kin-files";
import { en as apiErrors } from "./errors";
import { en as markdown } from "./markdown";
import { en as notifications } from "./notifications";
import { en as onboardingExtra } from "./onboarding-extra";
import { en as approvals } from "./approvals";
import { en as people } from "./people";
import { en as fit } from "./fit";
import { en as memoryUse } from "./memory-use";
import { en as pluginSettings } from "./plugin-settings";
import { en as pluginNames } from "./plugin-names";
import { en as statusCodes } from "./status-codes";
import { en as taskErrors } from "./task-errors";
import { en as webhooks } from "./webhooks";
import { en as kinAccess } from "./kin-access";
import { en as toolNames } from "./tool-names";
import { en as usage } from "./usage";

const en = {
  app: { name: "KinBot", tagline: "Your household of helpful Kins" },
  common: {
    save: "Save", cancel: "Cancel", continue: "Continue", back: "Back", skip: "Skip", close: "Close",
    notifications: "Notifications ({hotkey})",
    delete: "Delete", edit: "Edit", add: "Add", test: "Test connection", loading: "Loading…", retry: "Retry",
    search: "Search", required: "Required", optional: "Optional",
  },
  theme: { label: "Theme", light: "Light", dark: "Dark", system: "System", toggle: "Toggle dark mode" },
  language: { label: "Language", en: "English", fr: "Français" },
  signin: {
    title: "Welcome back", subtitle: "Sign in to talk with your Kins.", email: "Email", password: "Password",
    submit: "Sign in", failed: "That email and password do not match.", rateLimited: "Too many attempts. Try again in a moment.",
  },
  onboarding: {
    step: "Step {{current}} of {{total}}",
    identity: {
      title: "Tell us about you", subtitle: "You will be this KinBot's administrator.",
      avatar: "Photo", upload: "Upload a photo", firstName: "First name", lastName: "Last name", email: "Email",
      pseudonym: "Pseudonym", pseudonymHint: "What your Kins will call you.", language: "Language",
      password: "Password", confirmation: "Confirm password", mismatch: "The two passwords differ.",
      photoHint: "PNG, JPEG, WebP or GIF.",
      setupCode: "Set-up code", setupCodeHint: "This KinBot has no administrator yet. To show that you run it, enter the code printed in its log at start-up (or open the link shown there).",
      setupCodeRequired: "Enter the set-up code printed in KinBot's log.", setupCodeInvalid: "This is not the set-up code: copy it again from KinBot's log (it changes at every start).",
    },
    providers: {
      title: "Connect your AI providers", subtitle: "KinBot needs a chat model, and memory search for its long-term memory.",
      apiKey: "API key", connected: "Connected", needs: "Still needed: {{capabilities}}", covered: "A chat model and memory search are ready.",
      imageOff: "No image provider: generated avatars are off (you can add one later in Settings).",
      add: "Add a provider", type: "Provider", name: "Name", configured: "Configured", none: "None yet.",
      off: "Off for now, until a provider covers them (add one later in Settings): {{features}}",
      features: { image: "image generation (automatic Kin avatars, the image tool)", search: "web search tools" },
    },
    search: { title: "Web search", subtitle: "Optional: let your Kins look things up on the web.", none: "Without a search provider, Kins cannot search the web." },
    firstKin: { title: "Create your first Kin", subtitle: "A Kin is an expert with its own personality and memory." },
    finish: "Finish",
  },
  kin: {
    name: "Name", role: "Role", character: "Character", expertise: "Expertise", model: "Model", create: "Create Kin",
    newTitle: "A new Kin", newSubtitle: "Give it a name, a role and a personality.", chooseModel: "Choose a model",
    namePlaceholder: "Chef", rolePlaceholder: "Family cook", characterPlaceholder: "Warm, brief and encouraging.",
    expertisePlaceholder: "Vegetarian cooking, seasonal produce, quick weeknight meals.", noModels: "No language model is available: add an AI provider first.",
    avatar: "Avatar", avatarLater: "Later", avatarUpload: "Upload a picture", avatarAuto: "Generate from its identity",
    avatarPrompt: "Generate from a description", avatarPicture: "Picture", avatarDescription: "Describe the avatar",
    avatarNeedsImage: "Generating an avatar needs a provider with image generation (Settings).",
    mcp: "MCP servers", mcpHint: "Tools this Kin may use; change them later in its settings.", partly: "{{name}} was created, but: {{error}}",
  },
  sidebar: {
    kins: "Kins", tasks: "Tasks", account: "My account", settings: "Settings", newKin: "New Kin", noKins: "No Kins yet.",
    noTasks: "No running tasks.", queue_one: "{{count}} message waiting", queue_other: "{{count}} messages waiting",
    recentTasks: "Recent tasks", thinking: "Thinking", error: "The last reply failed", openMenu: "Open navigation", navigation: "Navigation", signOut: "Sign out",
  },
  chat: {
    placeholder: "Message {{name}}…", send: "Send", attach: "Attach a file", stop: "Stop", waiting: "Waiting",
    typing: "{{name}} is typing", loadOlder: "Load earlier messages", beginning: "This is the beginning of {{name}}'s story.",
    task: "Task", cron: "Scheduled", system: "System", error: "Error", tool: "Tool", toolRunning: "Running {{name}}…", toolCalls_one: "{{count}} tool call", toolCalls_other: "{{count}} tool calls",
    taskUnavailable: { title: "This task is not here", text: "It was deleted, or its Kin is not shared with you.", open: "Open {{name}}" }, notSent: "Message not sent", reconnecting: "Connection lost, reconnecting…", cancelTask: "Cancel the task", taskOf: "Task of {{name}}",
    taskStatus: { pending: "pending", in_progress: "running", completed: "completed", failed: "failed", cancelled: "cancelled" },
    taskQuestion: "{{task}} asks a question", taskQuestionHint: "Answer in this chat: {{name}} passes your answer on to the task.",
    openTask: "Open the task", questionWaiting: "A question waits for an answer", answerIn: "Answer it in {{name}}'s chat",
    reportsTo: "Reports to {{name}}", session: "The task's session", taskMode: { await: "awaited", async: "in the background", cron: "scheduled" },
    noSession: "Nothing in this session yet.", taskResult: "Result", you: "You", clock: "12h", select: "Choose a Kin to start talking.",
    secretHidden: "Secret {{number}} hidden", secretActions: "Secret {{number}} hidden: store it or show it",
    secretNote: "A secret was detected and hidden, from everyone and from {{name}} too. {{name}} can store it in the Vault; its sender can say it is not a secret.",
    storeSecret: "Store in the Vault…", notASecret: "Not a secret", storeTitle: "Store this secret in the Vault",
    storeDescription: "Nobody sees its value on the way: Kins read it by its key when a task needs it. The message will show the key instead.",
    storeConfirm: "Store", secretStored: "Stored in the Vault as {{key}}",
    dismissTitle: "Not a secret?", dismissDescription: "The hidden text will be shown to everyone in this chat, kept in its history and read by the Kin.",
    dismissConfirm: "Show it",
  },
  settings: {
    title: "Settings", providers: "AI providers", search: "Search providers", mcp: "MCP servers", vault: "Vault",
    users: "Users", plugins: "Plugins", account: "My account", masked: "Hidden", addSecret: "Add a secret",
    enabled: "Enabled", disabled: "Disabled", capabilities: "Capabilities",
    back: "Back to the chat", key: "Key", value: "Value", description: "Description", noSecrets: "No secrets yet.",
    secretUnreadable: "Cannot be opened: enter its value again",
    secretsUnreadable_one: "{{count}} secret was saved under another master key (a backup restored without its key file) and cannot be opened. Enter its value again, delete it, or ask whoever runs the server to put the original secret.key back.",
    secretsUnreadable_other: "{{count}} secrets were saved under another master key (a backup restored without its key file) and cannot be opened. Enter their values again, delete them, or ask whoever runs the server to put the original secret.key back.",
    keyHint: "Upper case with underscores, e.g. GITHUB_TOKEN.", valueHint: "Hidden once saved: nobody can read it back here.",
    adminOnly: "Only an administrator can change the settings.", required: { only_memory_backends: "Needed: it provides the only memory backend." }, hooks: "Hooks: {{hooks}}", builtin: "built in", toggle: "Enable {{name}}",
    pluginName: "Plugin name: {{name}}", pluginVersion: "version {{version}}",
    loadError: "Could not load: {{error}}",
    editSecret: "Edit {{key}}", newValue: "New value", newValueHint: "Leave empty to keep the current value.",
    deleteSecret: "Delete {{key}}?", deleteSecretHint: "Kins will no longer be able to read it. Messages keep showing its placeholder.",
  },
  kinSettings: {
    title: "{{name}}'s settings", open: "Kin settings", profile: "Profile", memories: "Memories", compacting: "Summary",
    avatar: "Avatar", upload: "Upload a picture", generate: "Generate one", promptPlaceholder: "A cheerful chef cat, flat illustration",
    generateFromPrompt: "Generate from this description", deleteKin: "Delete this Kin", deleteConfirm: "Delete {{name}} and its whole session? This cannot be undone.",
    searchMemories: "Search the memories", noMemories: "No memories yet.", deleteMemory: "Delete this memory",
    contextTokens: "{{tokens}} tokens in context, compacted past {{threshold}}", compactNow: "Compact now", nothingToCompact: "Nothing to summarise yet", nothingToCompactHint: "The most recent messages always stay word for word; a summary begins once the conversation is longer.", purge: "Start from a blank summary", purgeHint: "The Kin sees its most recent messages word for word and a summary of the rest. “Start from a blank summary” makes it forget that summary. Nothing is deleted: its memories and the whole conversation stay, and an earlier summary in the list can be made active again.",
    rollback: "Make it active", active: "Active", noSnapshots: "No summary yet: the whole session is in context.",
    messagesFolded: "{{count}} messages folded", purgeSnapshot: "Blank summary (started over)",
    crons: "Crons", cronsIntro: "A cron is a job {{name}} does on its own at set times: every morning, every Monday… Each time, a sub-Kin takes it on and its result comes back into the chat.", noCrons: "No crons yet.", newCron: "New cron", editCron: "Edit the cron", cronName: "Name",
    schedule: "Schedule",
    taskDescription: "What the task does", cronModel: "Model", defaultModel: "The Kin's model", pause: "Pause", resume: "Resume",
    confirm: "Confirm", decline: "Decline", declined: "Proposal declined: {{name}}.", awaitingConfirmation: "Awaiting confirmation", proposedBy: "Proposed by {{name}}", paused: "Paused", running: "Active",
    deleteCron: "Delete the cron {{name}}", deleteCronConfirm: "It will not run again. Its past runs stay in the tasks.",
    lastRun: "Last run: {{status}}", lastSkip: "Last skipped: {{reason}}", cronSaved: "Cron saved",
    nextRun: "Next run: {{when}}", neverRun: "Not run yet",
    runStatus: { starting: "starting", running: "running", completed: "completed", failed: "failed", cancelled: "cancelled", skipped: "skipped" },
    network: "Internet for its scripts", networkSwitch: "{{name}}'s scripts may use the internet",
    networkHint: "Off by default. When on, the scripts {{name}} writes (its custom tools) reach public web addresses through KinBot's proxy, never this machine nor your home network.",
    networkOwnerOnly: "Only an administrator or the person who created {{name}} can change this.",
    networkUnavailable: "This server cannot limit scripts to its proxy, so they stay offline for now.",
  },
  register: {
    title: "Join KinBot", subtitle: "You were invited as {{role}}. Tell us about you.", submit: "Create my account",
    invalid: "This invitation was already used, revoked, or has expired. Ask for a new one.", signIn: "I already have an account",
  },
  providers: {
    editHint: "A changed key or address is tested before it is saved.", secretKept: "Leave empty to keep the current one ({{hint}}).",
    keyEnding: "key ending in {{tail}}", keySaved: "key saved",
    deleteConfirm: "Remove {{name}}? Kins using its models will need another model.",
  },
  kinTools: {
    tab: "Tools", mcp: "MCP servers", mcpHint: "The servers whose tools this Kin may use, from its next turn.",
    noServers: "No MCP server is configured (Settings › MCP servers).", noServerTools: "No tools yet.",
    assign: "{{kin}} may use {{server}}", custom: "Custom tools", customHint: "Scripts the Kin registered as its own tools. Removing one leaves its script in the workspace.",
    remove: "Remove the tool {{name}}", removeConfirm: "Remove the tool {{name}}? {{kin}} can no longer call it; its script stays in the workspace.",
    removed: "Tool {{name}} removed", parametersOf: "Arguments of {{name}}", required: "required", noParameters: "No arguments.",
    noCustom: "This Kin has not registered any tool.", sandboxOn: "{{name}}'s scripts run isolated from the rest of the server: they only work on its own files, and cannot read KinBot's data, other Kins' files or the Vault's secrets.",
    sandboxNone: "No sandbox: an administrator chose to run scripts unconfined, so they can read what the server can read.",
    sandboxRefused: "Custom tools are off: this server cannot isolate scripts. An administrator can fix this.",
    sandboxRefusedAdmin: "Custom tools are off: no sandbox works on this server. An administrator can install bubblewrap, run a Linux kernel with Landlock, or accept the risk with custom_tool_sandbox = \"none\" (the server log says why).",
    pluginOff: "This plugin is switched off.",
    state: { connecting: "Connecting", connected: "Connected", failed: "Failed", disabled: "Disabled", stopped: "Stopped" },
  },
  mcp: {
    add: "Add an MCP server", none: "No MCP server yet.", hint: "Kins you assign it to are offered its tools as <server>__<tool>.",
    nameHint: "Letters, digits, - and _ only, 32 at most.", transport: "Transport", command: "Command", args: "Arguments", argsHint: "One a line.", env: "Environment", url: "URL", headers: "Headers",
    secretHint: "One NAME=value (headers: Name: value) a line; values are hidden once saved (******** keeps one), ${vault:KEY} reads the vault.",
    reconnect: "Reconnect {{name}}", deleteConfirm: "Remove {{name}}? The Kins using it lose its tools.",
  },
  users: {
    people: "People", invitations: "Invitations", role: "Role", member: "Member", admin: "Administrator",
    // A role inside a sentence ("You were invited as {{role}}"); the keys above are labels.
    roleInline: { member: "a member", admin: "an administrator" },
    roleOf: "Role of {{name}}", activeOf: "{{name}} can sign in", remove: "Remove {{name}}",
    removeConfirm: "Remove {{name}}'s account? Their messages stay in the chats.", note: "Note", notePlaceholder: "For Marie",
    invite: "Create an invitation", codeTitle: "Invitation link", codeOnce: "Shown only now: send it to the person you invite. It works once.",
    copy: "Copy the link", copied: "Link copied", noInvitations: "No invitations yet.", revoke: "Revoke", expires: "Expires {{date}}",
    status: { pending: "Pending", used: "Used", revoked: "Revoked", expired: "Expired" },
  },
  account: {
    title: "My account", profile: "Profile", saved: "Saved", languageSaved: "Language saved", photo: "Photo", password: "Password", current: "Current password",
    newPassword: "New password", confirmation: "Confirm the new password", changePassword: "Change password",
    passwordChanged: "Password changed. Other browsers were signed out.",
  },
  design: {
    title: "Design system", subtitle: "Every base component, in light and in dark.", colours: "Colours", buttons: "Buttons",
    inputs: "Inputs", cards: "Cards", overlays: "Dialogs, menus and toasts", tabs: "Tabs", avatars: "Avatars and badges",
    bubbles: "Chat bubbles", openDialog: "Open a dialog", openMenu: "Open a menu", showToast: "Show a toast", toastTitle: "Saved",
    toastBody: "Your changes are kept.", dialogTitle: "A gentle dialog", dialogBody: "Dialogs trap focus and close with Escape.",
    mockups: "Mock-ups",
  },
  ...chatflow,
  errors: { generic: "Something went wrong.", notFound: "This page does not exist.", home: "Go home", offline: "KinBot is not reachable." },
  ...apiErrors,
  ...cards,
  ...crons,
  ...kinFiles,
  ...markdown,
  ...notifications,
  ...onboardingExtra,
  ...people,
  ...fit,
  ...memoryUse,
  ...approvals,
  ...channels,
  ...channelProblems,
  ...pluginSettings,
  ...pluginNames,
  ...statusCodes,
  ...taskErrors,
  ...webhooks,
  ...kinAccess,
  ...toolNames,
  ...usage,
  ...backups,
  ...backgroundModels,
  ...contextWindow,
};

export default en;
export type Strings = typeof en;
