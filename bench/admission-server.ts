import { join } from 'node:path';
import { ApiServer } from '../src/server/apiserver.js';
import { ADMISSION_PLUGIN_FACTORIES } from '../src/admission/plugins.js';

/**
 * Capstan for the admission section, as its own process: the same server
 * with every admission plugin (`{"admission":false}`) or with the default
 * ones. `capstan serve` has no flag for turning admission off in this tree,
 * so the section starts the server through this entry instead.
 *
 * Usage: node admission-server.js '{"dataDir":"…","admission":true}'; prints `ready at <url>`.
 */

const cfg = JSON.parse(process.argv[2] ?? '{}') as { dataDir: string; admission: boolean };
const server = new ApiServer({
  lastResort: true,
  config: {
    dataDir: cfg.dataDir,
    certDir: join(cfg.dataDir, 'pki'),
    adminKubeconfig: join(cfg.dataDir, 'admin.kubeconfig'),
    storageBackend: 'sqlite',
    securePort: 0,
    ...(cfg.admission ? {} : { admission: { disablePlugins: [...ADMISSION_PLUGIN_FACTORIES.keys()] } }),
  },
});
await server.start();
process.stdout.write(`ready at ${server.url} \n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
