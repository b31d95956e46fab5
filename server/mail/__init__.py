"""Play by email: render mails, gate and queue them in the outbox, deliver them, read replies."""
