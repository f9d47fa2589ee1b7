"""The AWS APIs moto lacks, as loopback servers speaking their wire protocol so production
clients run unchanged against them: Textract's DetectDocumentText, AnalyzeExpense and
AnalyzeDocument (queries, tables), Bedrock's Converse and batch inference (its JSON shapes in
`bedrock_batch_shapes`; their answers from `stand_in`, docflow's rules engines standing in for
a model, loaded on the first request). Each is only its API's behaviour on
`base.LoopbackEmulator` (server, JSON answers, seeded throttling, start/stop). May import
docflow's product packages (extract, readers, rules; classify and enrich for the Converse
emulator's local stand-in model of the enrichment tool); imports nothing of the local stack.
"""
