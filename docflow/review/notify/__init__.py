"""Telling reviewers: the e-mails (SES), the link notifier that mints each reviewer's link and
mails it once per (stage, reviewer, kind), and the digest job that sends one mail per period
instead.

May import docflow.review.stage and docflow.review.access; never web or the desk.
"""
