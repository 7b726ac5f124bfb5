import { defineConfig } from 'vite';

// React's JSX through esbuild's automatic runtime; relative asset paths so the built site/
// can be served from any folder by a plain static file server.
export default defineConfig({
  base: './',
  esbuild: { jsx: 'automatic', jsxImportSource: 'react' },
  build: { outDir: 'site', emptyOutDir: true, sourcemap: false },
});
