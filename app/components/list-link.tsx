import { useEffect, type AnchorHTMLAttributes, type Ref } from "react";
import { useNavigate } from "react-router";

// Links repeated down a list (each moment's title, Update and Delete, each comment's Edit and
// Delete) as plain <a> elements. React Router's <Link> runs a dozen hooks per link in the server
// render; on a page of twenty moments that was a measurable share of the page's time. With
// JavaScript, one click listener (useListLinkNavigation, in the root) gives them the same
// client-side navigation as <Link>; without it they are ordinary links.

type ListLinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & {
  to: string;
  /** Keep the scroll position (React Router's preventScrollReset), e.g. for a confirmation. */
  keepScroll?: boolean;
  /** Replace the current history entry instead of adding one (with JavaScript). */
  replace?: boolean;
  ref?: Ref<HTMLAnchorElement>;
};

export function ListLink({ to, keepScroll, replace, ...rest }: ListLinkProps) {
  return (
    <a
      {...rest}
      href={to}
      data-list-link=""
      data-keep-scroll={keepScroll ? "" : undefined}
      data-replace={replace ? "" : undefined}
      data-discover="true"
    />
  );
}

/** Client-side navigation for every ListLink on the page: a plain left click, same origin, same tab. */
export function useListLinkNavigation() {
  const navigate = useNavigate();
  useEffect(() => {
    function onClick(event: MouseEvent) {
      // React's own handlers (on the same document) ran first: a link's onClick may have handled it
      if (
        event.defaultPrevented ||
        event.button !== 0 ||
        event.metaKey ||
        event.altKey ||
        event.ctrlKey ||
        event.shiftKey
      )
        return;
      const link = (event.target as Element | null)?.closest?.("a[data-list-link]");
      if (
        !(link instanceof HTMLAnchorElement) ||
        (link.target && link.target !== "_self") ||
        link.hasAttribute("download")
      )
        return;
      const url = new URL(link.href);
      if (url.origin !== window.location.origin) return;
      event.preventDefault();
      navigate(url.pathname + url.search + url.hash, {
        preventScrollReset: link.hasAttribute("data-keep-scroll"),
        replace: link.hasAttribute("data-replace"),
      });
    }
    document.addEventListener("click", onClick);
    return () => document.removeEventListener("click", onClick);
  }, [navigate]);
}
