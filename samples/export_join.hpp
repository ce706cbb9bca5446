// glreader-export join: see export_join.cpp.
#pragma once

// Runs `glreader-export join ARGS` (argv[0] is "join"); returns the exit status.
int export_join(int argc, char **argv);
