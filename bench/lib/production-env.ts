/**
 * Imported first by the bench's entry points: NODE_ENV=production before any library loads,
 * as the Docker image sets it. graphql-js decides at load time, from NODE_ENV, whether its
 * `instanceOf` checks also look for a second copy of graphql (a per-check cost the
 * production server does not pay); setting it later, in main(), would measure that cost.
 */
process.env.NODE_ENV = 'production';
