/** Shared by the server layout and the client hook (no "use client": the layout needs the string itself). */
export const THEME_KEY = "conveyor:theme";

/** Inline in <head>: applies the stored or system theme before anything renders (no flash of the wrong theme). */
export const THEME_SCRIPT = `(()=>{try{var p=localStorage.getItem("${THEME_KEY}");var d=p==="dark"||(p!=="light"&&matchMedia("(prefers-color-scheme: dark)").matches);var e=document.documentElement;e.classList.toggle("dark",d);e.style.colorScheme=d?"dark":"light";}catch(_){}})();`;
