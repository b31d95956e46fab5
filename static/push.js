// "Notify this browser" on the player's page (templates/_push.html): registers our service
// worker (/push-worker.js), asks the browser to subscribe to pushes with the server's public
// key, and posts the subscription (PushSubscription.toJSON()) with the page's CSRF token.
// Where the browser offers no pushes, it says so, in the page's language (the words the
// page hands its scripts, <body data-words>). No inline code: the page's
// Content-Security-Policy admits this file by its nonce.
"use strict";

(function () {
  var panel = document.getElementById("push");
  if (!panel) { return; }
  var button = document.getElementById("push-enable");
  var status = document.getElementById("push-status");
  var WORDS = JSON.parse(document.body.dataset.words);

  function say(text) { status.textContent = text; }

  // The unpadded base64url public key as the bytes pushManager.subscribe takes.
  function keyBytes(text) {
    var plain = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
    return Uint8Array.from(plain, function (character) { return character.charCodeAt(0); });
  }

  function post(subscription) {
    return fetch(panel.dataset.action, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": panel.dataset.csrf },
      body: JSON.stringify(subscription)
    }).then(function (response) {
      if (response.ok) {
        say(WORDS.push_done);
        panel.dataset.subscribed = "1";
        return;
      }
      return response.json().then(function (answer) {
        throw new Error(WORDS.push_refused.replace("%(reason)s", answer.error.message));
      });
    });
  }

  function enable() {
    button.disabled = true;
    say(WORDS.push_asking);
    navigator.serviceWorker.register(panel.dataset.worker).then(function () {
      return Notification.requestPermission();
    }).then(function (permission) {
      if (permission !== "granted") {
        throw new Error(WORDS.push_denied);
      }
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      return registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(panel.dataset.key)
      });
    }).then(post).catch(function (error) {
      say(WORDS.push_cannot.replace("%(reason)s", error.message));
      button.disabled = false;
    });
  }

  if (!window.isSecureContext || !("serviceWorker" in navigator) || !("PushManager" in window)) {
    say(WORDS.push_cannot.replace("%(reason)s", WORDS.push_no_https));
    return;
  }
  button.hidden = false;
  button.addEventListener("click", enable);
})();
