# Rules of the 'retrieval' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.
