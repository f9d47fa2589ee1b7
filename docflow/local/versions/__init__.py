"""Function versions on the local stack, as Lambda keeps them for `AutoPublishAlias: live`.

snapshot.py   what a version is made of: the product packages copied from a checkout, their
              digest, and the check (in a subprocess) that they import
store.py      the versions under the stack's state folder (`versions/<n>/`), the `live` alias
              and the pins of executions started before versions existed; every change is a
              temp dir or file renamed into place after fsync, under one lock
worker_main   the bootstrap of one version's worker process (standard library only): that
              version's code alone on sys.path, the checkout's editable install removed
router.py     the functions' host as the durable runner sees it: routes each invocation to
              the worker of the version it names (a numeric qualifier), or of `live`
alias.py      the durable runner resolves `live` to a version number when an execution
              starts, as Lambda does, so every resume names the version the run started on

deploy.py     what `docflow deploy`, `docflow versions [prune]` and `docflow up` do with them

Imports: the standard library, each other and docflow.function_versions; imported by the stack
and the CLI. The router imports no function code: that runs in the workers.
"""
