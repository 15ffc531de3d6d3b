"""Starting and confining an agent process: start methods, sandbox, seccomp, cgroups, limits."""
