#!/usr/bin/env node
// The `msgx` binary. A committed file, so installing the workspace links it before anything is
// built (a bin pointing into dist failed to link on a fresh clone); the CLI itself is dist/cli.js.
import "../dist/cli.js";
