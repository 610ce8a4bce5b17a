import * as React from "react";

import { cn } from "@/lib/utils";

import { fieldClasses } from "./input";

/** A multi-line text field. */
export const Textarea = React.forwardRef<HTMLTextAreaElement, React.TextareaHTMLAttributes<HTMLTextAreaElement>>(({ className, ...props }, ref) => (
  <textarea ref={ref} className={cn(fieldClasses, "min-h-20 resize-y py-2.5 leading-relaxed", className)} {...props} />
));
Textarea.displayName = "Textarea";
