// kkvision serve: the page's script (optional: without it the forms post and the server answers with
// the whole page).  With it: the answer comes in without a page load, the picture is kept so that a
// tapped label can be corrected and solved again without choosing the picture again.
"use strict";
(function () {
  const ask = document.getElementById("ask");
  const results = document.getElementById("results");
  const busy = document.getElementById("busy");
  const chosen = document.getElementById("chosen");
  if (!ask || !results || !window.fetch || !window.FormData) return;
  document.documentElement.classList.add("js");
  let last = null; // the FormData of the last request: the picture and the options, labels left out

  function picked(form) {
    // the one picture chosen (camera or gallery), or null
    for (const input of form.querySelectorAll('input[type=file][name=picture]')) {
      if (input.files && input.files.length) return input.files[0];
    }
    return null;
  }

  for (const input of ask.querySelectorAll('input[type=file][name=picture]')) {
    input.addEventListener("change", function () {
      // one picture at a time: choosing in one input clears the other
      for (const other of ask.querySelectorAll('input[type=file][name=picture]')) {
        if (other !== input) other.value = "";
      }
      const file = picked(ask);
      chosen.hidden = !file;
      chosen.textContent = file ? "Picture: " + file.name : "";
    });
  }

  async function send(data) {
    busy.hidden = false;
    results.setAttribute("aria-busy", "true");
    try {
      const response = await fetch("/part", { method: "POST", body: data });
      results.innerHTML = await response.text();
      wire();
      const first = results.querySelector(".results, .error");
      if (first && first.scrollIntoView) first.scrollIntoView({ behavior: "smooth", block: "start" });
    } catch (err) {
      results.textContent = "";
      const p = document.createElement("p");
      p.className = "error";
      p.textContent = "The server could not be reached: " + err.message;
      results.appendChild(p);
    } finally {
      busy.hidden = true;
      results.removeAttribute("aria-busy");
    }
  }

  ask.addEventListener("submit", function (event) {
    event.preventDefault();
    const data = new FormData(ask);
    const file = picked(ask);
    data.delete("picture");
    if (file) data.append("picture", file, file.name);
    last = data;
    send(data);
  });

  function again(fix) {
    // solve again: the kept picture and options, with every label of the fix form that is filled in
    if (!last) return false;
    const data = new FormData();
    for (const [key, value] of last.entries()) {
      if (!key.startsWith("label")) data.append(key, value);
    }
    for (const input of fix.querySelectorAll("input[type=text]")) {
      if (input.value.trim()) data.append(input.name, input.value.trim());
    }
    send(data);
    return true;
  }

  let editor = null;
  function edit(spot) {
    // a small dialog over the page: the label as read, to be corrected
    const cell = spot.dataset.cell, puzzle = spot.dataset.puzzle;
    const name = "label." + (puzzle ? puzzle + "." : "") + cell;
    const field = document.getElementById(name);
    if (!field) return;
    if (!editor) {
      editor = document.createElement("dialog");
      editor.className = "editor";
      editor.innerHTML = '<form method="dialog"><p><strong class="where"></strong> says:</p>' +
        '<p><input type="text" name="value" autocomplete="off" autocapitalize="characters" aria-label="the label">' +
        '</p><p class="hint">e.g. 12+, 3, 2÷ (x or * for ×, / for ÷)</p>' +
        '<button type="submit" value="go" class="go">Solve again</button> ' +
        '<button type="submit" value="cancel">Cancel</button></form>';
      document.body.appendChild(editor);
    }
    editor.querySelector(".where").textContent = (puzzle ? "Puzzle " + puzzle + ", " : "") + "the label at " + cell;
    const input = editor.querySelector("input");
    input.value = field.value || spot.dataset.label.replace("?", "");
    editor.onclose = function () {
      if (editor.returnValue === "go" && input.value.trim()) {
        field.value = input.value.trim();
        if (!again(field.form)) {  // a page the server drew whole: its form asks for the picture again
          field.form.querySelector("details").open = true;
          field.form.requestSubmit();
        }
      }
    };
    editor.returnValue = "";
    editor.showModal();
    input.focus();
    input.select();
  }

  function wire() {
    for (const spot of results.querySelectorAll("svg a.label")) {
      spot.addEventListener("click", function (event) {
        event.preventDefault();
        edit(spot);
      });
    }
    for (const fix of results.querySelectorAll("form.fix")) {
      if (last) {  // the picture is kept here: the form need not ask for it again
        for (const input of fix.querySelectorAll("input[type=file]")) input.required = false;
        for (const p of fix.querySelectorAll(".again-file")) p.hidden = true;
      }
      fix.addEventListener("submit", function (event) {
        if (again(fix)) event.preventDefault();
      });
    }
  }
  wire();
})();
