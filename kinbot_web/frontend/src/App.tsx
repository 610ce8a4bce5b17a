import * as React from "react";
import { useTranslation } from "react-i18next";
import { BrowserRouter, Route, Routes } from "react-router";

import { ThemeProvider } from "@/components/theme";
import { ToastProvider } from "@/components/ui/toast";
import { useNotificationClicks } from "@/lib/push";

// Every screen is its own chunk: a first visit downloads only the one it opens.
const DesignPage = React.lazy(() => import("./routes/design"));
const OnboardingMockup = React.lazy(() => import("./routes/mockups/onboarding"));
const ChatMockup = React.lazy(() => import("./routes/mockups/chat"));
const SettingsMockup = React.lazy(() => import("./routes/mockups/settings"));
const SignInPage = React.lazy(() => import("./routes/signin"));
const RegisterPage = React.lazy(() => import("./routes/register"));
const OnboardingPage = React.lazy(() => import("./routes/onboarding"));
const SettingsPage = React.lazy(() => import("./routes/settings"));
const AccountPage = React.lazy(() => import("./routes/account"));
const KinSettingsPage = React.lazy(() => import("./routes/kin-settings"));
const AppShell = React.lazy(() => import("./routes/shell"));

/** `?theme=light|dark` pins the theme of the design pages (the mock-up screenshots use it). */
function forcedTheme(): "light" | "dark" | undefined {
  if (typeof location === "undefined" || !location.pathname.startsWith("/design")) return undefined;
  const theme = new URLSearchParams(location.search).get("theme");
  return theme === "light" || theme === "dark" ? theme : undefined;
}

/** While a screen's code loads: the logo, as index.html shows it before the first render. */
function Loading() {
  return (
    <div className="flex min-h-dvh items-center justify-center" role="status" aria-live="polite">
      <img src="/favicon.svg" width={56} height={56} alt="KinBot" className="animate-pulse" />
    </div>
  );
}

/** Follows the service worker to where a clicked notification points. */
function NotificationClicks() {
  useNotificationClicks();
  return null;
}

/** The application: theme, toasts and the routes. */
export function App() {
  const { t } = useTranslation();
  return (
    <ThemeProvider forced={forcedTheme()}>
      <ToastProvider closeLabel={t("common.close")} label={t("common.notifications")}>
        <BrowserRouter>
          <NotificationClicks />
          <React.Suspense fallback={<Loading />}>
            <Routes>
              <Route path="/design" element={<DesignPage />} />
              <Route path="/design/mockups/onboarding" element={<OnboardingMockup />} />
              <Route path="/design/mockups/chat" element={<ChatMockup />} />
              <Route path="/design/mockups/settings" element={<SettingsMockup />} />
              <Route path="/signin" element={<SignInPage />} />
              <Route path="/register" element={<RegisterPage />} />
              <Route path="/invite/:code" element={<RegisterPage />} />
              <Route path="/onboarding" element={<OnboardingPage />} />
              <Route path="/settings" element={<SettingsPage />} />
              <Route path="/account" element={<AccountPage />} />
              <Route path="/kins/:kinId" element={<AppShell />} />
              <Route path="/kins/:kinId/settings" element={<KinSettingsPage />} />
              <Route path="/tasks/:taskId" element={<AppShell />} />
              <Route path="*" element={<AppShell />} />
            </Routes>
          </React.Suspense>
        </BrowserRouter>
      </ToastProvider>
    </ThemeProvider>
  );
}
