import { defineConfig } from 'drizzle-kit';

// Migrations are generated from schema/ and committed under drizzle/; the
// service applies them at start-up (see db/migrate.ts), never `push`.
export default defineConfig({
  dialect: 'postgresql',
  schema: './schema/index.ts',
  out: './drizzle',
  strict: true,
});
