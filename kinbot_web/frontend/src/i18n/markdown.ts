/** Strings of message text (Markdown): code blocks, the copy button, tables, task lists, footnotes. */
export const en = {
  markdown: {
    copy: "Copy",
    copied: "Copied",
    copyFailed: "Could not copy",
    copyCode: "Copy code",
    code: "Code",
    codeIn: "Code in {{language}}",
    table: "Table",
    taskDone: "Done",
    taskOpen: "To do",
    footnotes: "Footnotes",
    backToReference: "Back to reference {{reference}}",
  },
};

export const fr: typeof en = {
  markdown: {
    copy: "Copier",
    copied: "Copié",
    copyFailed: "Copie impossible",
    copyCode: "Copier le code",
    code: "Code",
    codeIn: "Code en {{language}}",
    table: "Tableau",
    taskDone: "Fait",
    taskOpen: "À faire",
    footnotes: "Notes",
    backToReference: "Retour à l'appel de note {{reference}}",
  },
};
