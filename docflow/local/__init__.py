"""The embedded local stack, in rooms by responsibility.

config.py, resources.py,  the shared base: the stack's ports and state folder, the AWS
private.py                resources template.yaml declares, created in moto, and who may
                          read the state folder (its owner alone: 0700 folders, 0600 files)
stack/        the supervisor (`stackd`), starting and stopping it, the recovery report
services/     what the stack plays of AWS: the functions' host, the local runner's starter
              (which the host hands the product), the Function URL frontend, the intake
              poller (the event source mapping), the schedules and operators' loops, the
              dashboard page
versions/     function versions as `AutoPublishAlias` keeps them: `docflow deploy`'s copies
              under the state folder, the `live` alias, the host that runs each version in a
              worker of its own, and the runner resolving `live` when an execution starts
durability/   what makes the stack survive a kill: the journal, durable moto state, snapshots,
              the durable runner's execution store
fidelity/     what corrects or measures the local tools against AWS: moto's atomic writes,
              history and callback fidelity, timers re-armed after a restart, the conformance
              runner, durable stats
emulators/    the AWS APIs moto lacks (Textract, AnalyzeExpense, Converse) on one loopback
              server base
tools/        what tests, benchmarks and the CLI share: uploads, the stack's mailbox read
              back, raw HTTP, free ports (the PDF generator and the moto sandbox, which
              the product never uses, are the test kit's: tests/kit/)

Imports run downward only: stack -> services -> tools -> durability -> fidelity -> the base;
emulators import nothing of the local stack. Nothing under docflow/local ships to Lambda.
"""
