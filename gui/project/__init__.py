"""Opening and creating a project: the New Project dialog, a database server's password."""
