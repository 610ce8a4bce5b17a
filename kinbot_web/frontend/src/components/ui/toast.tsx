import { CheckCircle2Icon, CircleAlertIcon, InfoIcon, XIcon } from "lucide-react";
import { Toast as ToastPrimitive } from "radix-ui";
import * as React from "react";

import { cn } from "@/lib/utils";

export type ToastTone = "info" | "success" | "error";

export interface ToastMessage {
  id: number;
  title: string;
  description?: string;
  tone?: ToastTone;
}

interface ToastContextValue {
  toast: (message: Omit<ToastMessage, "id">) => void;
}

const ToastContext = React.createContext<ToastContextValue | null>(null);

const ICONS = { info: InfoIcon, success: CheckCircle2Icon, error: CircleAlertIcon } as const;
const TONES = { info: "text-link", success: "text-success", error: "text-destructive" } as const;

/** Hosts toasts (announced to screen readers, swipe or Escape to dismiss); use `useToast()` to show one.
 * `label` names the toasts' region for screen readers ("{hotkey}" stands for its shortcut, F8). */
export function ToastProvider({ children, closeLabel = "Close", label = "Notifications ({hotkey})" }: { children: React.ReactNode; closeLabel?: string; label?: string }) {
  const [toasts, setToasts] = React.useState<ToastMessage[]>([]);
  const nextId = React.useRef(1);
  const toast = React.useCallback((message: Omit<ToastMessage, "id">) => {
    setToasts((current) => [...current, { ...message, id: nextId.current++ }]);
  }, []);
  const value = React.useMemo(() => ({ toast }), [toast]);
  return (
    <ToastContext.Provider value={value}>
      <ToastPrimitive.Provider swipeDirection="right" duration={5000}>
        {children}
        {toasts.map((item) => (
          <Toast key={item.id} item={item} closeLabel={closeLabel} onClose={() => setToasts((current) => current.filter((other) => other.id !== item.id))} />
        ))}
        <ToastPrimitive.Viewport label={label} className="fixed right-0 bottom-0 z-[100] flex max-h-screen w-full flex-col gap-2 p-4 outline-none sm:max-w-sm" />
      </ToastPrimitive.Provider>
    </ToastContext.Provider>
  );
}

/** One toast, as the provider renders it (exported for the design page). */
export function Toast({ item, onClose, open, closeLabel = "Close" }: { item: ToastMessage; onClose?: () => void; open?: boolean; closeLabel?: string }) {
  const tone = item.tone ?? "info";
  const Icon = ICONS[tone];
  return (
    <ToastPrimitive.Root
      open={open}
      onOpenChange={(isOpen) => !isOpen && onClose?.()}
      className="flex items-start gap-3 rounded-2xl border border-border/70 bg-popover p-4 text-popover-foreground shadow-lifted data-[state=open]:animate-rise-in data-[swipe=move]:translate-x-[var(--radix-toast-swipe-move-x)]"
    >
      <Icon className={cn("mt-0.5 size-5 shrink-0", TONES[tone])} aria-hidden />
      <div className="grid flex-1 gap-0.5">
        <ToastPrimitive.Title className="text-sm font-semibold">{item.title}</ToastPrimitive.Title>
        {item.description ? <ToastPrimitive.Description className="text-sm text-muted-foreground">{item.description}</ToastPrimitive.Description> : null}
      </div>
      <ToastPrimitive.Close className="rounded-lg p-1 text-muted-foreground hover:bg-accent hover:text-foreground" aria-label={closeLabel}>
        <XIcon className="size-4" aria-hidden />
      </ToastPrimitive.Close>
    </ToastPrimitive.Root>
  );
}

/** Show a toast from anywhere under `ToastProvider`. */
export function useToast(): ToastContextValue {
  const context = React.useContext(ToastContext);
  if (!context) throw new Error("useToast() needs a <ToastProvider>");
  return context;
}
