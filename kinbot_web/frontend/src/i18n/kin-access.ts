/** Strings of "Who can use this Kin" (a Kin's settings) and the lock on restricted Kins. */
export const en = {
  kinAccess: {
    tab: "Access",
    title: "Who can use this Kin",
    everyone: "Everyone",
    everyoneHint: "Every member of the family sees it and talks to it.",
    members: "Only these members",
    membersHint: "Only the people ticked see it: its conversation, memories, files, tasks and crons.",
    private: "Only me",
    privateHint: "Only you see it.",
    privateTo: "Only {{name}}",
    membersLabel: "Members who can use {{name}}",
    you: "{{name}} (you)",
    save: "Save",
    saved: "Access saved.",
    selfWarning: "You are not ticked: once saved, you will no longer see this Kin.",
    ownerOnly: "Only an administrator can restrict this Kin to chosen members; you can make a Kin you created private to yourself.",
    locked: "Restricted to some members",
  },
};

export const fr: typeof en = {
  kinAccess: {
    tab: "Accès",
    title: "Qui peut utiliser ce Kin",
    everyone: "Tout le monde",
    everyoneHint: "Chaque membre de la famille le voit et lui parle.",
    members: "Seulement ces membres",
    membersHint: "Seules les personnes cochées le voient : sa conversation, ses souvenirs, ses fichiers, ses tâches et ses crons.",
    private: "Moi seulement",
    privateHint: "Vous seul le voyez.",
    privateTo: "Seulement {{name}}",
    membersLabel: "Membres qui peuvent utiliser {{name}}",
    you: "{{name}} (vous)",
    save: "Enregistrer",
    saved: "Accès enregistré.",
    selfWarning: "Vous n'êtes pas coché : une fois enregistré, vous ne verrez plus ce Kin.",
    ownerOnly: "Seul un administrateur peut réserver ce Kin à des membres choisis ; vous pouvez rendre privé pour vous un Kin que vous avez créé.",
    locked: "Réservé à certains membres",
  },
};
