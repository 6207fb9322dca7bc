"""The customers' dashboard at `/dashboard` (issue 6, spec 5.4 and 6): server-rendered pages
for account members, per environment (`/dashboard/sandbox/...`, `/dashboard/live/...`):
API keys, webhook endpoints, deliveries and devices, one module a page.

Security:
- Sign-in with e-mail and password (argon2id, `services/members.py`); the session cookie is
  `HttpOnly`, `SameSite=Lax`, `Path=/`, and `Secure` with the `__Host-` prefix whenever the
  dashboard is reached over https (the request's scheme or `ENERGYHUB_PUBLIC_URL`).
- CSRF: every form carries the session's CSRF token (the sign-in form a token from its own
  short-lived cookie), checked in constant time; a POST the browser marks cross-site or
  same-site, or whose `Origin` is another site, is refused before any of that.
- Pages are never cached, never framed, and send no referrer. Every form answers 303 to its
  page (`flash.py`); a new key rides there once in a cookie sealed with the session's own
  key, and an endpoint's signing secret is shown only on the page its form redirected to.
- A page shows only the signed-in member's account; an id of another account's key,
  endpoint, delivery or device is answered as not found."""

from energyhub.web.dashboard.app import dashboard_app
from energyhub.web.dashboard.site import DashboardServices

__all__ = ["DashboardServices", "dashboard_app"]
