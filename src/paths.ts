/** Locations inside the project, the same whether running from src/ (TypeScript) or dist/src/ (compiled). */
import fs from 'node:fs';
import path from 'node:path';

function findProjectRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

/** The folder holding package.json. */
export const PROJECT_ROOT = findProjectRoot(__dirname);
/** The bundled OpenAPI documents (committed build output). */
export const BUNDLES_DIR = path.join(PROJECT_ROOT, 'generated', 'openapi');
/** The Redoc pages built by `npm run docs`. */
export const DOCS_DIR = path.join(PROJECT_ROOT, 'dist', 'docs');
