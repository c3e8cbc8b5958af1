// Small inline icons (no icon font, no extra request). Decorative unless given a label.

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

export function HeartIcon({ filled, className = "icon" }: { filled?: boolean; className?: string }) {
  return (
    <svg className={className} viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path
        d="M12 21s-7.5-4.6-9.5-9.2C1 8.2 3.3 4.5 7 4.5c2.1 0 3.6 1.2 5 3 1.4-1.8 2.9-3 5-3 3.7 0 6 3.7 4.5 7.3C19.5 16.4 12 21 12 21z"
        fill={filled ? "currentColor" : "none"}
        stroke="currentColor"
        strokeWidth="2"
      />
    </svg>
  );
}

export function LogoIcon({ className = "logo" }: { className?: string }) {
  return (
    <svg className={className} viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false">
      <circle cx="16" cy="16" r="15" fill="#f6b6c6" />
      <path d="M16 25s-8-4.9-8-10.2C8 11.7 10.2 10 12.4 10c1.6 0 2.8.9 3.6 2.1.8-1.2 2-2.1 3.6-2.1 2.2 0 4.4 1.7 4.4 4.8C24 20.1 16 25 16 25z" fill="#c2185b" />
    </svg>
  );
}

export function SendIcon({ className = "icon" }: { className?: string }) {
  return (
    <svg className={className} viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d="M3 20.5 21 12 3 3.5 3 10l12 2-12 2z" fill="currentColor" />
    </svg>
  );
}
