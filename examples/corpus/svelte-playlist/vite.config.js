import { defineConfig } from 'vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'

// The built site is committed (site/) and served by a plain static server: relative asset
// paths, no source maps, one bundle.
export default defineConfig({
  base: './',
  plugins: [svelte()],
  build: {
    outDir: 'site',
    emptyOutDir: true,
    sourcemap: false,
    modulePreload: false,
  },
})
