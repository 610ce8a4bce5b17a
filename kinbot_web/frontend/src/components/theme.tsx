import * as React from "react";

export type ThemeChoice = "light" | "dark" | "system";
const STORAGE_KEY = "kinbot.theme";

interface ThemeContextValue {
  choice: ThemeChoice;
  dark: boolean;
  setChoice: (choice: ThemeChoice) => void;
}

const ThemeContext = React.createContext<ThemeContextValue | null>(null);

function systemDark(): boolean {
  return typeof matchMedia !== "undefined" && matchMedia("(prefers-color-scheme: dark)").matches;
}

function savedChoice(): ThemeChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system";
  }
}

/** Light, dark or the system's choice, kept in localStorage and applied as `.dark` on <html>. */
export function ThemeProvider({ children, forced }: { children: React.ReactNode; forced?: "light" | "dark" }) {
  const [choice, setChoiceState] = React.useState<ThemeChoice>(forced ?? savedChoice);
  const [prefersDark, setPrefersDark] = React.useState(systemDark);
  React.useEffect(() => {
    if (typeof matchMedia === "undefined") return;
    const query = matchMedia("(prefers-color-scheme: dark)");
    const listener = () => setPrefersDark(query.matches);
    query.addEventListener("change", listener);
    return () => query.removeEventListener("change", listener);
  }, []);
  const dark = choice === "dark" || (choice === "system" && prefersDark);
  React.useEffect(() => {
    document.documentElement.classList.toggle("dark", dark);
  }, [dark]);
  const setChoice = React.useCallback(
    (next: ThemeChoice) => {
      setChoiceState(next);
      if (forced) return;
      try {
        if (next === "system") localStorage.removeItem(STORAGE_KEY);
        else localStorage.setItem(STORAGE_KEY, next);
      } catch {
        // private mode: the choice lasts for this page only
      }
    },
    [forced],
  );
  const value = React.useMemo(() => ({ choice, dark, setChoice }), [choice, dark, setChoice]);
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

/** The current theme and a way to change it. */
export function useTheme(): ThemeContextValue {
  const context = React.useContext(ThemeContext);
  if (!context) throw new Error("useTheme() needs a <ThemeProvider>");
  return context;
}
