"""The Schedule panel: choose and tune the revisit schedule, switch the signature."""
