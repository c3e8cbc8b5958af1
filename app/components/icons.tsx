// Small icons (no icon font, no extra request). Decorative unless given a label. The ones repeated
// on every moment (heart, send) are CSS masks over SVGs inlined in the stylesheet (app/icons), so a
// page of moments does not carry the same SVG markup twenty times.

export function PersonIcon({ label, className = "icon" }: { label?: string; className?: string }) {
  return (
    <svg
      className={className}
      viewBox="0 0 24 24"
      width="24"
      height="24"
      role={label ? "img" : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
      focusable="false"
    >
      <circle cx="12" cy="8" r="4" fill="currentColor" />
      <path d="M4 21c0-4.4 3.6-7 8-7s8 2.6 8 7z" fill="currentColor" />
    </svg>
  );
}

/** The like button's heart (outlined, or filled when liked): a CSS mask in the text colour. */
export function HeartIcon({ filled, className = "icon" }: { filled?: boolean; className?: string }) {
  return <span className={`${className} icon--heart${filled ? " icon--heart-filled" : ""}`} aria-hidden="true" />;
}

export function LogoIcon({ className = "logo" }: { className?: string }) {
  return (
    <svg className={className} viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false">
      <circle cx="16" cy="16" r="15" fill="#f6b6c6" />
      <path
        d="M16 25s-8-4.9-8-10.2C8 11.7 10.2 10 12.4 10c1.6 0 2.8.9 3.6 2.1.8-1.2 2-2.1 3.6-2.1 2.2 0 4.4 1.7 4.4 4.8C24 20.1 16 25 16 25z"
        fill="#c2185b"
      />
    </svg>
  );
}

export function SendIcon({ className = "icon" }: { className?: string }) {
  return <span className={`${className} icon--send`} aria-hidden="true" />;
}
