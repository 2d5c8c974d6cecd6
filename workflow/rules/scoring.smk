# Rules of the 'scoring' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.
