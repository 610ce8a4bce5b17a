import type { Strings } from "./en";

/** Chaînes françaises (mêmes clés que en.ts, vérifié par le typage). */
const fr: Strings = {
  app: { name: "KinBot", tagline: "Votre maisonnée de Kins serviables" },
  common: {
    save: "Enregistrer", cancel: "Annuler", continue: "Continuer", back: "Retour", skip: "Passer", close: "Fermer",
    delete: "Supprimer", edit: "Modifier", add: "Ajouter", test: "Tester la connexion", loading: "Chargement…", retry: "Réessayer",
    search: "Rechercher", required: "Obligatoire", optional: "Facultatif",
  },
  theme: { label: "Thème", light: "Clair", dark: "Sombre", system: "Système", toggle: "Basculer le mode sombre" },
  language: { label: "Langue", en: "English", fr: "Français" },
  signin: {
    title: "Bon retour", subtitle: "Connectez-vous pour parler à vos Kins.", email: "E-mail", password: "Mot de passe",
    submit: "Se connecter", failed: "Cet e-mail et ce mot de passe ne correspondent pas.", rateLimited: "Trop de tentatives. Réessayez dans un instant.",
  },
  onboarding: {
    step: "Étape {{current}} sur {{total}}",
    identity: {
      title: "Présentez-vous", subtitle: "Vous serez l'administrateur de ce KinBot.",
      avatar: "Photo", upload: "Choisir une photo", firstName: "Prénom", lastName: "Nom", email: "E-mail",
      pseudonym: "Pseudonyme", pseudonymHint: "Le nom que vos Kins utiliseront.", language: "Langue",
      password: "Mot de passe", confirmation: "Confirmer le mot de passe", mismatch: "Les deux mots de passe diffèrent.",
      photoHint: "PNG, JPEG, WebP ou GIF.",
    },
    providers: {
      title: "Connectez vos fournisseurs d'IA", subtitle: "KinBot a besoin d'un modèle de langage (llm) et d'embeddings pour la mémoire à long terme.",
      apiKey: "Clé d'API", connected: "Connecté", needs: "Encore nécessaire : {{capabilities}}", covered: "llm et embedding sont couverts",
      imageOff: "Aucun fournisseur d'images : les avatars générés sont désactivés (ajoutez-en un plus tard dans les Réglages).",
      add: "Ajouter un fournisseur", type: "Fournisseur", name: "Nom", configured: "Configurés", none: "Aucun pour l'instant.",
      testFailed: "La connexion a échoué", off: "Désactivé pour l'instant : {{features}}",
    },
    search: { title: "Recherche web", subtitle: "Facultatif : laissez vos Kins chercher sur le web.", none: "Sans fournisseur de recherche, les Kins ne peuvent pas chercher sur le web." },
    firstKin: { title: "Créez votre premier Kin", subtitle: "Un Kin est un expert avec sa personnalité et sa mémoire." },
    finish: "Terminer",
  },
  kin: {
    name: "Nom", role: "Rôle", character: "Caractère", expertise: "Expertise", model: "Modèle", create: "Créer le Kin",
    newTitle: "Un nouveau Kin", newSubtitle: "Donnez-lui un nom, un rôle et une personnalité.", chooseModel: "Choisir un modèle",
    namePlaceholder: "Chef", rolePlaceholder: "Cuisinier de la famille", characterPlaceholder: "Chaleureux, bref et encourageant.",
    expertisePlaceholder: "Cuisine végétarienne, produits de saison, repas rapides en semaine.", noModels: "Aucun modèle de langage disponible : ajoutez d'abord un fournisseur d'IA.",
  },
  sidebar: {
    kins: "Kins", tasks: "Tâches", account: "Mon compte", settings: "Réglages", newKin: "Nouveau Kin", noKins: "Pas encore de Kin.",
    noTasks: "Aucune tâche en cours.", queue_one: "{{count}} message en attente", queue_other: "{{count}} messages en attente",
    thinking: "Réfléchit", error: "La dernière réponse a échoué", openMenu: "Ouvrir la navigation", signOut: "Se déconnecter",
  },
  chat: {
    placeholder: "Écrire à {{name}}…", send: "Envoyer", attach: "Joindre un fichier", stop: "Arrêter", waiting: "En attente",
    typing: "{{name}} écrit", loadOlder: "Charger les messages précédents", beginning: "Ici commence l'histoire de {{name}}.",
    task: "Tâche", cron: "Planifié", system: "Système", error: "Erreur", tool: "Outil", toolCalls_one: "{{count}} appel d'outil", toolCalls_other: "{{count}} appels d'outils",
    reconnecting: "Connexion perdue, reconnexion…", cancelTask: "Annuler la tâche", taskOf: "Tâche de {{name}}",
    taskStatus: { pending: "en attente", in_progress: "en cours", completed: "terminée", failed: "échouée", cancelled: "annulée" }, empty: "Dites bonjour à {{name}}.", you: "Vous", select: "Choisissez un Kin pour commencer.",
  },
  settings: {
    title: "Réglages", providers: "Fournisseurs d'IA", search: "Fournisseurs de recherche", mcp: "Serveurs MCP", vault: "Coffre-fort",
    users: "Utilisateurs", plugins: "Plugins", account: "Mon compte", masked: "Masqué", addSecret: "Ajouter un secret",
    enabled: "Activé", disabled: "Désactivé", capabilities: "Capacités",
    back: "Retour au chat", key: "Clé", value: "Valeur", description: "Description", noSecrets: "Aucun secret pour l'instant.",
    keyHint: "Majuscules et soulignés, par ex. GITHUB_TOKEN.", valueHint: "Masquée une fois enregistrée : personne ne peut la relire ici.",
    adminOnly: "Seul un administrateur peut modifier les réglages.", hooks: "Hooks", builtin: "intégré", toggle: "Activer {{name}}",
    loadError: "Chargement impossible : {{error}}",
  },
  kinSettings: {
    title: "Réglages de {{name}}", open: "Réglages du Kin", profile: "Profil", memories: "Souvenirs", compacting: "Résumé",
    avatar: "Avatar", upload: "Choisir une image", generate: "En générer un", promptPlaceholder: "Un chat cuisinier joyeux, illustration à plat",
    generateFromPrompt: "Générer d'après cette description", deleteKin: "Supprimer ce Kin", deleteConfirm: "Supprimer {{name}} et toute sa session ? C'est définitif.",
    searchMemories: "Chercher dans les souvenirs", noMemories: "Pas encore de souvenirs.", deleteMemory: "Supprimer ce souvenir",
    contextTokens: "{{tokens}} tokens en contexte, résumé au-delà de {{threshold}}", compactNow: "Résumer maintenant", purge: "Repartir d'un résumé vide",
    rollback: "Le rendre actif", active: "Actif", noSnapshots: "Pas encore de résumé : toute la session est en contexte.",
    messagesFolded: "{{count}} messages résumés", purgeSnapshot: "Résumé vide (purge)",
  },
  account: {
    title: "Mon compte", profile: "Profil", saved: "Enregistré", photo: "Photo", password: "Mot de passe", current: "Mot de passe actuel",
    newPassword: "Nouveau mot de passe", confirmation: "Confirmer le nouveau mot de passe", changePassword: "Changer le mot de passe",
    passwordChanged: "Mot de passe changé. Les autres navigateurs ont été déconnectés.",
  },
  design: {
    title: "Design system", subtitle: "Chaque composant de base, en clair et en sombre.", colours: "Couleurs", buttons: "Boutons",
    inputs: "Champs", cards: "Cartes", overlays: "Dialogues, menus et notifications", tabs: "Onglets", avatars: "Avatars et badges",
    bubbles: "Bulles de chat", openDialog: "Ouvrir un dialogue", openMenu: "Ouvrir un menu", showToast: "Afficher une notification", toastTitle: "Enregistré",
    toastBody: "Vos modifications sont conservées.", dialogTitle: "Un dialogue tout doux", dialogBody: "Les dialogues gardent le focus et se ferment avec Échap.",
    mockups: "Maquettes",
  },
  errors: { generic: "Une erreur est survenue.", notFound: "Cette page n'existe pas.", home: "Accueil", offline: "KinBot est injoignable." },
};

export default fr;
