/** Builds the web demo (web-demo/index.html) into web-demo/dist, which the demo Worker serves as assets. */
import { defineConfig } from 'vite'

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
})
