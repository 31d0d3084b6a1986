// Native addons (better-sqlite3) are built with node-gyp. With no network it cannot download
// Node's headers, and pnpm passes only a few variables to build scripts, so point node-gyp at
// the headers installed beside the running Node (e.g. /usr/include/node for /usr/bin/node).
const path = require('node:path');

module.exports = {
  hooks: {
    updateConfig(config) {
      const nodedir =
        process.env.npm_config_nodedir || path.resolve(path.dirname(process.execPath), '..');
      config.extraEnv = { ...config.extraEnv, npm_config_nodedir: nodedir };
      return config;
    },
  },
};
