/**
 * The picture of a Kin that has none: made here, as SVG, from the Kin's name and role. An
 * icon says what the Kin is for (read from its role, then its name, then its expertise, in
 * English and French) and a gradient chosen by its name tells Kins apart. No network, no image.
 */
import {
  BabyIcon,
  BookOpenIcon,
  BrainIcon,
  BriefcaseIcon,
  CalendarIcon,
  CameraIcon,
  CarIcon,
  ChefHatIcon,
  CodeIcon,
  CoinsIcon,
  DumbbellIcon,
  FeatherIcon,
  FilmIcon,
  FlaskConicalIcon,
  Gamepad2Icon,
  HeartPulseIcon,
  HouseIcon,
  LanguagesIcon,
  LeafIcon,
  type LucideIcon,
  MountainIcon,
  MusicIcon,
  NewspaperIcon,
  PaletteIcon,
  PawPrintIcon,
  PlaneIcon,
  ScaleIcon,
  ShoppingCartIcon,
  SparklesIcon,
  WrenchIcon,
} from "lucide-react";
import * as React from "react";

/** What a Kin is for, as its avatar shows it. */
export type KinTheme =
  | "cook" | "teacher" | "health" | "garden" | "money" | "travel" | "music" | "sport" | "code"
  | "languages" | "pets" | "home" | "repairs" | "writing" | "art" | "photo" | "science"
  | "planning" | "shopping" | "family" | "law" | "news" | "games" | "movies" | "mind" | "car"
  | "outdoors" | "work" | "default";

/**
 * Word beginnings (lower case, without accents) naming each theme, English and French. A word
 * of the text matches when it starts with one; a stem ending in "$" must be the whole word.
 * Earlier themes win within the same text: subjects come before "teacher" (a music teacher
 * shows music), broad words ("home", "work") come last.
 */
const KEYWORDS: [Exclude<KinTheme, "default">, string[]][] = [
  ["cook", ["cook", "chef$", "cuisin", "recipe", "recette", "bak", "patiss", "boulang", "meal", "repas", "kitchen", "food", "nourriture", "gastronom", "culinar", "culinair", "menu$", "menus$"]],
  ["health", ["doctor", "docteur", "medec", "medic", "health", "sante", "nurse", "infirm", "pharma", "symptom", "soin", "care$", "nutrition", "diet"]],
  ["garden", ["garden", "jardin", "plant", "flower", "fleur", "botan", "potager"]],
  ["money", ["money", "argent", "budget", "financ", "bank", "banque", "accountant", "comptab", "tax$", "taxes$", "impot", "invest", "epargne", "saving", "econom", "expense", "depense"]],
  ["travel", ["travel", "voyag", "trip$", "vacation", "vacance", "holiday", "flight", "tourism", "touris", "itinerar", "itinerair"]],
  ["music", ["music", "musiq", "musicien", "song", "chanson", "piano", "guitar", "sing$", "singer", "singing", "chant$", "chanteu", "chanter", "melod", "playlist"]],
  ["sport", ["sport", "fitness", "coach", "workout", "training", "entrain", "running", "gym", "yoga", "athlet", "muscul", "football", "tennis"]],
  ["code", ["code", "coding", "coder", "develop", "programm", "software", "logiciel", "dev$", "tech$", "computer", "ordinateur", "informati", "python", "javascript", "linux", "geek"]],
  ["languages", ["language", "langue", "translat", "tradu", "english", "anglais", "spanish", "espagnol", "german", "allemand", "grammar", "grammair", "vocabul"]],
  ["pets", ["pet$", "pets$", "dog", "chien", "cat$", "cats$", "chats$", "animal", "animaux", "veterin", "puppy", "chiot", "chaton"]],
  ["home", ["home$", "homes$", "maison", "house", "household", "menage", "cleaning", "nettoy", "rangement", "tidy", "famille$", "foyer"]],
  ["repairs", ["repair", "repar", "bricol", "diy$", "plumb", "plomb", "electric", "handyman", "fix$"]],
  ["writing", ["writ", "ecri", "story", "stories", "histoire", "poem", "poeme", "poesie", "poet", "author", "auteur", "novel", "roman", "redact", "journal$"]],
  ["art", ["art$", "arts$", "artist", "drawing", "dessin", "paint", "peint", "design", "craft", "creati", "illustr"]],
  ["photo", ["photo", "camera", "picture"]],
  ["science", ["scien", "physic", "physiq", "chemist", "chimi", "biolog", "research", "recherche", "lab$", "laborato", "astronom", "space$", "espace$"]],
  ["teacher", ["teach", "prof", "tutor", "tuteur", "tutrice", "school", "ecole", "scolai", "homework", "devoir", "math", "lesson", "lecon", "cours$", "enseign", "educat", "instit", "learn", "apprend", "study", "etude"]],
  ["planning", ["planning", "plan$", "agenda", "schedul", "calendar", "calendrier", "organis", "organiz", "secretar", "secretair", "remind", "rappel"]],
  ["shopping", ["shopping", "courses$", "grocer", "achat", "purchase", "market", "marche$"]],
  ["family", ["kid", "child", "enfant", "baby", "babies", "bebe", "parent", "famil", "nanny", "nounou"]],
  ["law", ["law$", "lawyer", "legal", "droit", "avocat", "juridi", "justice", "contract", "contrat"]],
  ["news", ["news", "actualit", "journalis", "info$", "infos$"]],
  ["games", ["game", "gaming", "jeu$", "jeux$", "gamer", "joueur", "puzzle", "echecs", "chess"]],
  ["movies", ["film", "movie", "cinema", "series$", "serie$", "tv$"]],
  ["mind", ["psych", "mental", "wellbeing", "well-being", "bien-etre", "meditat", "therap", "emotion", "stress", "sleep", "sommeil", "philosoph"]],
  ["car", ["car$", "cars$", "voiture", "auto$", "automobil", "mechanic", "mecani", "garage"]],
  ["outdoors", ["hik", "randonn", "mountain", "montagne", "outdoor", "nature", "climb", "escalad", "camping"]],
  ["work", ["career", "carriere", "job$", "jobs$", "emploi", "work", "travail", "business", "entreprise", "boss", "manager", "product", "meeting", "reunion", "cv$", "resume$"]],
];

const ICONS: Record<KinTheme, LucideIcon> = {
  cook: ChefHatIcon, teacher: BookOpenIcon, health: HeartPulseIcon, garden: LeafIcon, money: CoinsIcon,
  travel: PlaneIcon, music: MusicIcon, sport: DumbbellIcon, code: CodeIcon, languages: LanguagesIcon,
  pets: PawPrintIcon, home: HouseIcon, repairs: WrenchIcon, writing: FeatherIcon, art: PaletteIcon,
  photo: CameraIcon, science: FlaskConicalIcon, planning: CalendarIcon, shopping: ShoppingCartIcon,
  family: BabyIcon, law: ScaleIcon, news: NewspaperIcon, games: Gamepad2Icon, movies: FilmIcon,
  mind: BrainIcon, car: CarIcon, outdoors: MountainIcon, work: BriefcaseIcon, default: SparklesIcon,
};

/** Lower case, accents dropped, split into words. */
function wordsOf(text: string | null | undefined): string[] {
  return (text ?? "")
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^a-z0-9-]+/)
    .filter(Boolean);
}

function themeOfText(text: string | null | undefined): KinTheme | null {
  const words = wordsOf(text);
  if (words.length === 0) return null;
  for (const [theme, stems] of KEYWORDS) {
    const hit = stems.some((stem) =>
      stem.endsWith("$") ? words.includes(stem.slice(0, -1)) : words.some((word) => word.startsWith(stem)),
    );
    if (hit) return theme;
  }
  return null;
}

/** What the Kin is for: its role speaks first, then its name, then its expertise. */
export function kinThemeOf(kin: { name: string; role?: string | null; expertise?: string | null }): KinTheme {
  return themeOfText(kin.role) ?? themeOfText(kin.name) ?? themeOfText(kin.expertise) ?? "default";
}

/**
 * Background gradients (from, to) in OKLCH, light and warm enough for the dark icon drawn on
 * them (3:1 at least, checked in kin-avatar.test.ts).
 */
export const KIN_GRADIENTS: [string, string][] = [
  ["oklch(0.88 0.08 40)", "oklch(0.76 0.12 25)"],
  ["oklch(0.9 0.09 80)", "oklch(0.78 0.12 55)"],
  ["oklch(0.9 0.08 130)", "oklch(0.76 0.1 155)"],
  ["oklch(0.88 0.07 190)", "oklch(0.75 0.09 215)"],
  ["oklch(0.88 0.06 260)", "oklch(0.76 0.09 285)"],
  ["oklch(0.88 0.07 320)", "oklch(0.76 0.11 345)"],
  ["oklch(0.91 0.07 95)", "oklch(0.78 0.1 135)"],
  ["oklch(0.88 0.07 15)", "oklch(0.77 0.1 330)"],
  ["oklch(0.89 0.06 220)", "oklch(0.78 0.1 170)"],
  ["oklch(0.9 0.08 60)", "oklch(0.77 0.1 10)"],
];

/** The icon's colour on every gradient. */
export const KIN_ICON_COLOR = "oklch(0.3 0.05 40)";

/** A stable small hash of a text (the same name always gives the same look). */
export function hashOf(text: string): number {
  let hash = 2166136261;
  for (const char of text) hash = Math.imul(hash ^ char.codePointAt(0)!, 16777619) >>> 0;
  return hash;
}

/** The gradient (and its angle) a name gets. */
export function kinGradientOf(name: string): { from: string; to: string; angle: number } {
  const hash = hashOf(name.trim().toLowerCase());
  const [from, to] = KIN_GRADIENTS[hash % KIN_GRADIENTS.length];
  return { from, to, angle: (hash >>> 8) % 4 };
}

// The four diagonals and sides a gradient may run along (x1, y1, x2, y2).
const DIRECTIONS = [
  [0, 0, 1, 1],
  [1, 0, 0, 1],
  [0, 0, 0, 1],
  [0, 0, 1, 0],
] as const;

export interface KinPictureProps {
  name: string;
  role?: string | null;
  expertise?: string | null;
  /** The accessible name; none makes the picture decorative (its name is written beside it). */
  label?: string | null;
  className?: string;
}

/** A Kin's generated picture: its theme's icon on its name's gradient, filling its box. */
export function KinPicture({ name, role, expertise, label, className }: KinPictureProps) {
  const id = React.useId();
  const theme = kinThemeOf({ name, role, expertise });
  const Icon = ICONS[theme];
  const { from, to, angle } = kinGradientOf(name);
  const [x1, y1, x2, y2] = DIRECTIONS[angle];
  return (
    <svg
      viewBox="0 0 40 40"
      className={className}
      data-kin-theme={theme}
      {...(label ? { role: "img", "aria-label": label } : { "aria-hidden": true })}
    >
      <defs>
        <linearGradient id={`${id}g`} x1={x1} y1={y1} x2={x2} y2={y2}>
          <stop offset="0" stopColor={from} />
          <stop offset="1" stopColor={to} />
        </linearGradient>
      </defs>
      <rect width="40" height="40" fill={`url(#${id}g)`} />
      <circle cx="31" cy="9" r="9" fill="white" opacity="0.22" />
      <Icon x={9} y={9} width={22} height={22} color={KIN_ICON_COLOR} strokeWidth={1.9} aria-hidden />
    </svg>
  );
}
