// Runs rendered specs in the directory WINDUP_SPEC_DIR names, with the system's Chromium
// (WINDUP_CHROMIUM, or chromium on the PATH): no browser download.
import { defineConfig } from '@playwright/test';

const testDir = process.env.WINDUP_SPEC_DIR ?? '.';

export default defineConfig({
  testDir,
  outputDir: `${testDir}/.results`,
  testMatch: '**/*.spec.ts',
  workers: 1,
  retries: 0,
  reporter: 'line',
  timeout: 30_000,
  use: {
    launchOptions: {
      executablePath: process.env.WINDUP_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    },
  },
});
