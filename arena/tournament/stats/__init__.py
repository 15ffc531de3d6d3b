"""What stored results say: TrueSkill, MLE ratings, the SPRT, solo tables, reports."""
