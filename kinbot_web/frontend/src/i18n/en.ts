/** English strings (the reference: fr.ts must have the same keys). */
const en = {
  app: { name: "KinBot", tagline: "Your household of helpful Kins" },
  common: {
    save: "Save", cancel: "Cancel", continue: "Continue", back: "Back", skip: "Skip", close: "Close",
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
    },
    providers: {
      title: "Connect your AI providers", subtitle: "KinBot needs a language model (llm) and embeddings for long-term memory.",
      apiKey: "API key", connected: "Connected", needs: "Still needed: {{capabilities}}", covered: "llm and embedding are covered",
      imageOff: "No image provider: generated avatars are off (you can add one later in Settings).",
      add: "Add a provider", type: "Provider", name: "Name", configured: "Configured", none: "None yet.",
      testFailed: "The connection failed", off: "Off for now: {{features}}",
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
  },
  sidebar: {
    kins: "Kins", tasks: "Tasks", account: "My account", settings: "Settings", newKin: "New Kin", noKins: "No Kins yet.",
    noTasks: "No running tasks.", queue_one: "{{count}} message waiting", queue_other: "{{count}} messages waiting",
    thinking: "Thinking", error: "The last reply failed", openMenu: "Open navigation", signOut: "Sign out",
  },
  chat: {
    placeholder: "Message {{name}}…", send: "Send", attach: "Attach a file", stop: "Stop", waiting: "Waiting",
    typing: "{{name}} is typing", loadOlder: "Load earlier messages", beginning: "This is the beginning of {{name}}'s story.",
    task: "Task", cron: "Scheduled", system: "System", error: "Error", tool: "Tool", toolCalls_one: "{{count}} tool call", toolCalls_other: "{{count}} tool calls",
    reconnecting: "Connection lost, reconnecting…", cancelTask: "Cancel the task", taskOf: "Task of {{name}}",
    taskStatus: { pending: "pending", in_progress: "running", completed: "completed", failed: "failed", cancelled: "cancelled" }, empty: "Say hello to {{name}}.", you: "You", select: "Choose a Kin to start talking.",
  },
  settings: {
    title: "Settings", providers: "AI providers", search: "Search providers", mcp: "MCP servers", vault: "Vault",
    users: "Users", plugins: "Plugins", account: "My account", masked: "Hidden", addSecret: "Add a secret",
    enabled: "Enabled", disabled: "Disabled", capabilities: "Capabilities",
    back: "Back to the chat", key: "Key", value: "Value", description: "Description", noSecrets: "No secrets yet.",
    keyHint: "Upper case with underscores, e.g. GITHUB_TOKEN.", valueHint: "Hidden once saved: nobody can read it back here.",
    adminOnly: "Only an administrator can change the settings.", hooks: "Hooks", builtin: "built in", toggle: "Enable {{name}}",
    loadError: "Could not load: {{error}}",
  },
  kinSettings: {
    title: "{{name}}'s settings", open: "Kin settings", profile: "Profile", memories: "Memories", compacting: "Summary",
    avatar: "Avatar", upload: "Upload a picture", generate: "Generate one", promptPlaceholder: "A cheerful chef cat, flat illustration",
    generateFromPrompt: "Generate from this description", deleteKin: "Delete this Kin", deleteConfirm: "Delete {{name}} and its whole session? This cannot be undone.",
    searchMemories: "Search the memories", noMemories: "No memories yet.", deleteMemory: "Delete this memory",
    contextTokens: "{{tokens}} tokens in context, compacted past {{threshold}}", compactNow: "Compact now", purge: "Start from a blank summary",
    rollback: "Make it active", active: "Active", noSnapshots: "No summary yet: the whole session is in context.",
    messagesFolded: "{{count}} messages folded", purgeSnapshot: "Blank summary (purge)",
  },
  account: {
    title: "My account", profile: "Profile", saved: "Saved", photo: "Photo", password: "Password", current: "Current password",
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
  errors: { generic: "Something went wrong.", notFound: "This page does not exist.", home: "Go home", offline: "KinBot is not reachable." },
};

export default en;
export type Strings = typeof en;
