// Turnpost's own page script: the pages work without it; with it,
// - a game table follows the game's event stream and swaps in the server-rendered table
//   (/games/<id>/live) after each move, and the guided choices load without a page reload;
// - its talk panel shows new messages as they come (/games/<id>/talk) and sends without
//   a page reload, keeping what is being written when the table is swapped;
// - moments (<time datetime>) are rewritten in the viewer's time zone (or the player's);
// - the player's games page follows their event stream and swaps in the fresh list;
// - the new game's links get working copy buttons;
// - the create form shows only the options and the player rows of the chosen game;
// - on a board, the arrow keys move the focus to the nearest choice in their direction
//   (Tab and Enter pick as anywhere else);
// - when another player moves, the page's live region says the move in words.
// Every word it writes is in the page's language: the words the page hands it (<body
// data-words>, from the server's catalog) and the browser's Intl for moments.
// No framework, no inline code: the Content-Security-Policy admits this file by its nonce.
"use strict";

(function () {
  // The page's language and the words this script writes, as the page hands them
  // (<html lang>, <body data-words>: the server's catalog in the reader's language).
  var LANGUAGE = document.documentElement.lang || "en";
  var WORDS = JSON.parse(document.body.dataset.words || "{}");
  // Dates as the server words them ("Sat 28 Nov"); English in its British order.
  var LOCALE = LANGUAGE === "en" ? "en-GB" : LANGUAGE;
  var UNITS = [["minute", 60, 90 * 60], ["hour", 3600, 48 * 3600], ["day", 86400, Infinity]];
  var RELATIVE = new Intl.RelativeTimeFormat(LOCALE, { numeric: "always" });

  function distance(seconds) {
    var size = Math.abs(seconds);
    if (size < 60) { return WORDS.just_now; }
    for (var i = 0; i < UNITS.length; i++) {
      if (size < UNITS[i][2]) {
        var count = Math.round(size / UNITS[i][1]);
        return RELATIVE.format(seconds < 0 ? -count : count, UNITS[i][0]);
      }
    }
    return "";
  }

  // The day and clock formats of a time zone (the viewer's when ``zone`` is empty).
  var ZONES = {};
  function zoneFormats(zone) {
    if (!ZONES[zone]) {
      var place = zone ? { timeZone: zone } : {};
      ZONES[zone] = {
        date: new Intl.DateTimeFormat(LOCALE, Object.assign({ weekday: "short", day: "numeric", month: "short" }, place)),
        clock: new Intl.DateTimeFormat(LOCALE, Object.assign({ hour: "2-digit", minute: "2-digit", hour12: false }, place))
      };
    }
    return ZONES[zone];
  }

  // A day as the server words it: weekday, day, month, in the page's language.
  function dayWords(format, moment) {
    var parts = {};
    format.formatToParts(moment).forEach(function (part) { parts[part.type] = part.value; });
    return [parts.weekday, parts.day, parts.month].join(" ");
  }

  // Every <time datetime> in words: in its data-zone (a signed-in player's, named by its
  // data-zone-label) when it has one, else in the viewer's time zone, as the server words them.
  function localTimes(root) {
    root.querySelectorAll("time[datetime]").forEach(function (element) {
      var moment = new Date(element.getAttribute("datetime"));
      if (isNaN(moment.getTime())) { return; }
      var zone;
      try { zone = zoneFormats(element.dataset.zone || ""); } catch (unknown) { return; }
      var label = element.dataset.zoneLabel ? " " + element.dataset.zoneLabel : "";
      element.textContent = distance((moment.getTime() - Date.now()) / 1000) +
        " (" + dayWords(zone.date, moment) + ", " + zone.clock.format(moment) + label + ")";
      element.title = moment.toLocaleString(LOCALE);
    });
  }

  function copyButtons() {
    document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
      var field = document.getElementById(button.dataset.copy);
      if (!field) { return; }
      button.hidden = false;
      button.addEventListener("click", function () {
        var selection = window.getSelection();
        selection.selectAllChildren(field);
        var done = function () { button.textContent = WORDS.copied; };
        var fallback = function () { if (document.execCommand("copy")) { done(); } };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(field.textContent.trim()).then(done, fallback);
        } else {
          fallback();
        }
      });
    });
  }

  function engineOptions() {
    var select = document.getElementById("engine");
    if (!select) { return; }
    var show = function () {
      document.querySelectorAll("fieldset.options[data-engine]").forEach(function (fieldset) {
        fieldset.hidden = fieldset.dataset.engine !== select.value;
      });
      var most = Number(select.selectedOptions[0].dataset.max || 99);
      document.querySelectorAll(".player-row[data-seat]").forEach(function (row) {
        var unused = Number(row.dataset.seat) >= most;
        row.hidden = unused;
        row.querySelectorAll("input").forEach(function (input) { input.disabled = unused; });
      });
    };
    select.addEventListener("change", show);
    show();
  }

  // -- the board by keyboard ------------------------------------------------------
  var ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  function centre(element) {
    var box = element.getBoundingClientRect();
    return [box.left + box.width / 2, box.top + box.height / 2];
  }

  // The board's choice nearest to ``from`` in the direction ``way`` ([dx, dy]): the least
  // distance along it plus four times the distance across it (a choice in line first);
  // none when nothing lies that way.
  function nearest(board, from, way) {
    var here = centre(from);
    var best = null;
    var bestScore = Infinity;
    board.querySelectorAll("a[href]").forEach(function (link) {
      if (link === from || !link.checkVisibility()) { return; }
      var there = centre(link);
      var along = (there[0] - here[0]) * way[0] + (there[1] - here[1]) * way[1];
      var across = Math.abs((there[0] - here[0]) * way[1] + (there[1] - here[1]) * way[0]);
      if (along <= 1) { return; }
      var score = along + 4 * across;
      if (score < bestScore) { best = link; bestScore = score; }
    });
    return best;
  }

  function boardKeys() {
    document.addEventListener("keydown", function (event) {
      var way = ARROWS[event.key];
      if (!way || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
      var from = event.target.closest && event.target.closest("a[href]");
      var board = from && from.closest("#board");
      if (!board) { return; }
      var next = nearest(board, from, way);
      event.preventDefault();
      if (next) { next.focus(); }
    });
  }

  // -- fetching server-rendered HTML ------------------------------------------
  // The HTML page or fragment at ``url`` (a failed answer: a refused promise).
  function fetchHtml(url) {
    return fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) { throw new Error(response.status); }
        return response.text();
      });
  }

  // ``html`` parsed into a detached element, to pick the fresh parts from.
  function parsed(html) {
    var holder = document.createElement("div");
    holder.innerHTML = html;
    return holder;
  }

  // A refresh that fetches the fragment at ``address()`` (none: nothing to refresh) and
  // hands it, parsed, to ``use``; one fetch at a time, and once more when asked meanwhile.
  function refresher(address, use) {
    var loading = false;
    var again = false;
    function refresh() {
      var url = address();
      if (!url) { return; }
      if (loading) { again = true; return; }
      loading = true;
      fetchHtml(url)
        .then(function (html) { use(parsed(html)); })
        .catch(function () {})
        .then(function () {
          loading = false;
          if (again) { again = false; refresh(); }
        });
    }
    return refresh;
  }

  // -- the game table --------------------------------------------------------
  function liveTable() {
    var live = document.getElementById("live");
    if (!live) { return; }
    var source = null;
    var loading = false;
    var next = null;  // what to load once the table being loaded has come: [address, push]
    var heardWhileLoading = false;  // a message came while a table was being fetched

    function liveUrl(address) {
      var url = new URL(address, location.href);
      return url.pathname.replace(/\/$/, "") + "/live" + url.search;
    }

    function swap(html, focus) {
      var fresh = parsed(html).querySelector("#live");
      if (!fresh) { return false; }
      var typed = live.querySelector("#notation-form input[name=notation]");
      var box = live.querySelector("#notation-box");
      var freshTyped = fresh.querySelector("#notation-form input[name=notation]");
      if (typed && freshTyped && typed.value && !freshTyped.value) {
        freshTyped.value = typed.value;
        fresh.querySelector("#notation-box").open = box.open;
      }
      keepDrafts(live, fresh);
      var twin = focusTwin(live, fresh);
      live.replaceWith(fresh);
      live = fresh;
      document.title = live.dataset.title;
      localTimes(live);
      scrollMessages(live);
      showReplayed(live);
      if (focus) {
        var turn = live.querySelector("#turn");
        if (turn) { turn.focus({ preventScroll: true }); }
      } else if (twin) {
        twin.focus({ preventScroll: true });
      }
      return true;
    }

    // Say in the live region what the table ``shown`` brought: the newest move in words
    // (another player's, come by the stream), then the line of what happens now.
    function announce(shown) {
      var region = document.getElementById("announce");
      var newest = shown.querySelector("#moves li");
      var status = shown.querySelector("#status");
      if (!region || !newest) { return; }
      region.textContent = [newest, status].filter(Boolean).map(function (element) {
        return element.textContent.replace(/\s+/g, " ").trim();
      }).join(" ");
    }

    // Fetch the table for ``address`` and swap it in; ``push``: a step the player took.
    function load(address, push) {
      if (loading) {
        if (!next || push) { next = [address, push]; }
        return;
      }
      loading = true;
      fetchHtml(liveUrl(address))
        .then(function (html) {
          var seen = Number(live.dataset.seq);
          if (!swap(html, push)) { return; }
          if (heardWhileLoading) {  // the table swapped in may predate the message
            heardWhileLoading = false;
            refreshTalk();
          }
          if (!push && Number(live.dataset.seq) > seen) { announce(live); }
          var shown = live.dataset.url;
          if (push) {
            history.pushState(null, "", address);
          } else if (shown && shown !== location.pathname + location.search) {
            history.replaceState(null, "", shown);
          }
          follow();
        })
        .catch(function () { if (push) { location.href = address; } })
        .then(function () {
          loading = false;
          var waiting = next;
          next = null;
          if (waiting) { load(waiting[0], waiting[1]); }
        });
    }

    // The page's stream (the seat's, open after the end for the talk): reopened when the
    // table shows another seat.
    function follow() {
      if (!window.EventSource) { return; }
      var url = new URL(live.dataset.events, location.href);
      url.searchParams.set("last_event_id", live.dataset.seq);
      if (source && source.following === live.dataset.events) { return; }
      if (source) { source.close(); }
      source = new EventSource(url.pathname + url.search);
      source.following = live.dataset.events;
      var changed = function () { load(location.href, false); };
      source.addEventListener("move", changed);
      source.addEventListener("end", changed);
      source.addEventListener("message", heard);
      source.addEventListener("open", refreshTalk);  // what was said while disconnected
    }

    // A message on the stream: the talk panel fetched anew, and once more after a table
    // being fetched meanwhile is swapped in (it brings a talk panel rendered before it).
    function heard() {
      if (loading) { heardWhileLoading = true; }
      refreshTalk();
    }

    // -- the talk panel ------------------------------------------------------
    // Fetch the talk panel and swap in its message lists (the forms keep what is written).
    var refreshTalk = refresher(function () {
      var talk = live.querySelector("#talk");
      return talk && talk.dataset.url;
    }, function (holder) {
      holder.querySelectorAll("ol.messages[id]").forEach(function (fresh) {
        var shown = live.querySelector("#" + fresh.id);
        if (shown) { shown.replaceWith(fresh); }
      });
      localTimes(live);
      scrollMessages(live);
    });

    // Send a message without leaving the page: the answer is the page, whose talk panel
    // (the message listed, or why it was refused) replaces this one.
    function say(form) {
      var thread = form.querySelector("input[name=thread]").value;
      fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin" })
        .then(function (response) { return response.text(); })
        .then(function (html) {
          var fresh = parsed(html).querySelector("#talk");
          var talk = live.querySelector("#talk");
          if (!fresh || !talk) { form.submit(); return; }
          talk.replaceWith(fresh);
          localTimes(fresh);
          scrollMessages(fresh);
          var field = fresh.querySelector("#text-" + thread);
          if (field) { field.focus({ preventScroll: true }); }
        })
        .catch(function () { form.submit(); });
    }

    document.addEventListener("submit", function (event) {
      var form = event.target.closest("form.say");
      if (!form || !live.contains(form) || !window.fetch || !window.FormData) { return; }
      event.preventDefault();
      say(form);
    });

    document.addEventListener("click", function (event) {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey ||
          event.shiftKey || event.altKey) { return; }
      var link = event.target.closest("a[href]");
      if (!link || !live.contains(link)) { return; }
      var url = new URL(link.getAttribute("href"), location.href);  // an SVG link's href is no string
      if (url.origin !== location.origin || url.pathname !== location.pathname) { return; }
      event.preventDefault();
      load(url.pathname + url.search + url.hash, true);
    });
    window.addEventListener("popstate", function () { load(location.href, false); });
    scrollMessages(live);
    showReplayed(live);
    follow();
  }

  // -- the player's games ------------------------------------------------------
  // The list follows the player's event stream: on each change (a move in one of their
  // games) it fetches the server-rendered list again and swaps it in.
  function myGames() {
    var list = document.getElementById("my-games");
    if (!list || !window.EventSource) { return; }
    var refresh = refresher(function () { return list.dataset.live; }, function (holder) {
      var fresh = holder.querySelector("#my-games");
      if (!fresh) { return; }
      list.replaceWith(fresh);
      list = fresh;
      document.title = list.dataset.title;
      localTimes(list);
    });

    var source = new EventSource(list.dataset.events);
    var opened = false;
    source.addEventListener("change", refresh);
    source.addEventListener("open", function () {
      if (opened) { refresh(); }  // reconnected: a change may have come meanwhile
      opened = true;
    });
  }

  // What is being written in the talk panel of ``shown`` goes on in ``fresh``.
  function keepDrafts(shown, fresh) {
    var focused = document.activeElement;
    shown.querySelectorAll("form.say textarea[id]").forEach(function (field) {
      var twin = fresh.querySelector("#" + field.id);
      if (!twin) { return; }
      if (field.value && !twin.value) { twin.value = field.value; }
      if (field === focused) {
        requestAnimationFrame(function () {
          twin.focus({ preventScroll: true });
          twin.setSelectionRange(field.selectionStart, field.selectionEnd);
        });
      }
    });
  }

  // Where the focus goes in ``fresh`` when it was in ``shown`` (a keyboard keeps its place
  // when another player's move swaps the table): the same element by its id or its link,
  // else the turn; none when the focus was elsewhere or in the talk (keepDrafts keeps it).
  function focusTwin(shown, fresh) {
    var focused = document.activeElement;
    if (!focused || !shown.contains(focused) || focused.matches("form.say textarea")) { return null; }
    var href = focused.getAttribute("href");
    return (focused.id && fresh.querySelector("#" + CSS.escape(focused.id))) ||
      (href && fresh.querySelector('a[href="' + CSS.escape(href) + '"]')) ||
      fresh.querySelector("#turn");
  }

  // The newest messages in view.
  function scrollMessages(root) {
    root.querySelectorAll("ol.messages").forEach(function (list) {
      list.scrollTop = list.scrollHeight;
    });
  }

  // The replayed move in the middle of the scrolled move list (not only somewhere below).
  function showReplayed(root) {
    var current = root.querySelector("ol.moves li.current");
    if (!current) { return; }
    var list = current.parentElement;
    var offset = current.getBoundingClientRect().top - list.getBoundingClientRect().top;
    list.scrollTop += offset - (list.clientHeight - current.offsetHeight) / 2;
  }

  function start() {
    localTimes(document);
    copyButtons();
    engineOptions();
    liveTable();
    boardKeys();
    myGames();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
