import * as React from "react";

/** A tab list's chosen tab, kept in the address's fragment (`/settings#backups`): a reload or a
 * link opens the same tab. `tabs` are the values a fragment may name, `first` the tab without
 * one. The fragment is replaced, not pushed: Back leaves the page, as it does from other tabs. */
export function useTabInAddress(tabs: readonly string[], first: string): [string, (tab: string) => void] {
  const [tab, setTab] = React.useState(() => {
    const wanted = window.location.hash.slice(1);
    return tabs.includes(wanted) ? wanted : first;
  });
  const choose = React.useCallback((next: string) => {
    setTab(next);
    window.history.replaceState(window.history.state, "", `${window.location.pathname}${window.location.search}#${next}`);
  }, []);
  return [tab, choose];
}
