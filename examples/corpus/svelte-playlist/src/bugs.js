// The seeded bugs switched on for this page load (site/bugs.js sets window.__BUGS__).
export function bug(id) {
  const on = typeof window !== 'undefined' && Array.isArray(window.__BUGS__) ? window.__BUGS__ : []
  return on.includes(id)
}
