/** Builds the web demo (web-demo/index.html) into web-demo/dist, which the demo Worker serves as assets. */
import { defineConfig } from 'vite'

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // the SPA, and the page an authorization server redirects back to (src/sign-in.ts)
    rollupOptions: {
      input: {
        main: `${import.meta.dirname}/index.html`,
        callback: `${import.meta.dirname}/oauth-callback.html`,
      },
    },
  },
})
