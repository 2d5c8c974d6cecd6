"""The built-in formats of prediction files, one module each (``prediction_files.format_registry``).

Every module of this package is a format: it registers one ``AccountedFormat`` when imported, and
the registry imports every module here. A format from outside the package is a plugin module
(config ``benchmark_plugins``), written the same way (README "Extending").
"""
