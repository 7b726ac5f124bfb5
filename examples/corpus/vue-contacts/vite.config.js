import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

// The built site is committed (site/) and served by a plain static server: relative asset
// paths, no source maps, one bundle.
export default defineConfig({
  base: './',
  plugins: [vue()],
  build: {
    outDir: 'site',
    emptyOutDir: true,
    sourcemap: false,
    modulePreload: false,
  },
})
