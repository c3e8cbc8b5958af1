// Starts the page's scripts once its content is on screen (docs/decisions/0035-slow-networks.md):
// the server made React Router's module script and modulepreload links inert
// (app/web/deferred-scripts.server.ts); this inline script, placed after them, runs once the
// stylesheets are in (a classic script waits for them), then waits for the page's priority photos
// (fetchpriority="high": the kid's photo, the first moment's) to load or fail, lets the browser
// paint, and turns the preloads and the module script back on. A page without priority photos starts
// them at its first paint. Plain ES5 on purpose: it runs before any of our code.

export const DEFERRED_SCRIPTS_LOADER = `(function(){
var d=document,started=0;
function start(){
if(started)return;started=1;
var s=d.querySelector("script[data-deferred-module]");
if(!s)return;
var l=d.querySelectorAll('link[rel="x-deferred-modulepreload"]');
for(var i=0;i<l.length;i++){var p=d.createElement("link");p.rel="modulepreload";p.href=l[i].getAttribute("href");d.head.appendChild(p);}
var m=d.createElement("script");m.type="module";m.nonce=s.nonce;m.textContent=s.textContent;d.body.appendChild(m);
}
function painted(){requestAnimationFrame(function(){setTimeout(start,0);});}
var imgs=d.querySelectorAll('img[fetchpriority="high"]'),waiting=0;
function one(){if(--waiting===0)painted();}
for(var i=0;i<imgs.length;i++){if(!imgs[i].complete){waiting++;imgs[i].addEventListener("load",one);imgs[i].addEventListener("error",one);}}
if(!waiting)painted();
})();`;

/** The loader's <script>, rendered right after React Router's <Scripts />. */
export function DeferredScriptsLoader({ nonce }: { nonce: string }) {
  return (
    // biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script of our own (no user data), allowed by its nonce
    <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: DEFERRED_SCRIPTS_LOADER }} />
  );
}
