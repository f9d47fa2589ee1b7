"""Why a document is where it is: its durable execution's own history as a timeline.

`history` pages GetDurableExecutionHistory (AWS and the local runner alike) and folds the events
into operations as they arrive (`timeline`), so a long history is never held whole; `meaning`
joins the read model's reports (review stages, reviewers, decisions) onto the operations;
`text` and `svg` draw the result for a terminal and for the dashboard's document page
(`page`). Nothing here writes; no callback id, token, comment or field value leaves it.
"""
