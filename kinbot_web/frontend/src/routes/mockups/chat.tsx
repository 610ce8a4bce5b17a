import { MenuIcon, SettingsIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Composer } from "@/components/app/composer";
import { Sidebar } from "@/components/app/sidebar";
import { MessageText, MessageView } from "@/components/chat/message-view";
import { Avatar } from "@/components/ui/avatar";
import { Button } from "@/components/ui/button";
import { TypingIndicator } from "@/components/ui/chat-bubble";

import { sampleKins, sampleMe, sampleMessages, sampleTasks } from "./samples";

/** Mock-up of the main screen: the sidebar and Chef's chat, a reply streaming in. */
export default function ChatMockup() {
  const { t } = useTranslation();
  const chef = sampleKins[0];
  const end = React.useRef<HTMLDivElement>(null);
  React.useEffect(() => end.current?.scrollIntoView({ block: "end" }), []);
  return (
    <div className="flex h-dvh overflow-hidden">
      <aside className="hidden w-72 shrink-0 border-r border-border/70 md:block">
        <Sidebar me={sampleMe} kins={sampleKins} tasks={sampleTasks} selectedKinId={chef.id} />
      </aside>
      <main className="flex min-w-0 flex-1 flex-col">
        <header className="flex items-center gap-3 border-b border-border/70 px-4 py-3">
          <Button variant="ghost" size="icon" className="md:hidden" aria-label={t("sidebar.openMenu")}>
            <MenuIcon />
          </Button>
          <Avatar name={chef.name} status="thinking" />
          <div className="min-w-0 flex-1">
            <h1 className="truncate font-bold">{chef.name}</h1>
            <p className="truncate text-xs text-muted-foreground">{chef.role}</p>
          </div>
          <Button variant="ghost" size="icon" aria-label={t("kinSettings.open")}>
            <SettingsIcon />
          </Button>
        </header>
        <div className="min-h-0 flex-1 overflow-y-auto">
          <div className="mx-auto flex max-w-3xl flex-col gap-4 px-4 py-6">
            {sampleMessages.map((message) => (
              <MessageView key={message.id} message={message} me={sampleMe} kin={chef} />
            ))}
            <div className="flex items-end gap-2.5">
              <Avatar name={chef.name} className="mb-5" />
              <div className="flex flex-col gap-1">
                <span className="text-xs font-semibold text-muted-foreground">{chef.name}</span>
                <div className="rounded-2xl rounded-bl-md border border-border/70 bg-bubble-assistant px-4 py-2.5 shadow-soft">
                  <MessageText text="Of course! Use a **mild** curry paste and stir in a spoon of yoghurt for Léo, then" />
                </div>
                <TypingIndicator label={t("chat.typing", { name: chef.name })} />
              </div>
            </div>
            <div ref={end} />
          </div>
        </div>
        <div className="mx-auto w-full max-w-3xl px-4 pb-4">
          <Composer kinName={chef.name} busy />
        </div>
      </main>
    </div>
  );
}
