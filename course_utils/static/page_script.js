(() => {
  const state = window.courseUtilsA11y || (window.courseUtilsA11y = {count: 0});
  const describe = (control, label) => {
    // A slider's tooltip is its label's title; a dropdown's or checkbox's is on a span in its label.
    const titled = label && (label.hasAttribute('title') ? label : label.querySelector('[title]'));
    const help = titled && titled.getAttribute('title');
    if (help && help !== label.textContent.trim() && !control.hasAttribute('aria-description')) {
      control.setAttribute('aria-description', help);
    }
  };
  const scan = () => {
    state.pending = false;
    for (const handle of document.querySelectorAll('.widget-slider .noUi-handle[role="slider"]')) {
      const slider = handle.closest('.widget-slider');
      const label = slider && slider.querySelector(':scope > .widget-label');
      if (!handle.hasAttribute('aria-labelledby') && !handle.hasAttribute('aria-label')) {
        if (label && label.textContent.trim()) {
          if (!label.id) label.id = 'course-slider-label-' + (++state.count);
          handle.setAttribute('aria-labelledby', label.id);
        } else {
          handle.setAttribute('aria-label', 'slider');
        }
      }
      describe(handle, label);
      // The number beside the slider can be typed into (Tab reaches it next): name it too.
      const readout = slider && slider.querySelector(':scope > .widget-readout');
      if (readout && label && label.id && !readout.hasAttribute('aria-labelledby')) {
        readout.setAttribute('role', 'textbox');
        readout.setAttribute('aria-labelledby', label.id);
        readout.setAttribute('aria-description', 'the value: type a number and press Enter');
      }
      // The arrow keys belong to the slider: JupyterLab's notebook shortcuts (ArrowUp/Down move
      // between cells) skip an element with this attribute.
      handle.setAttribute('data-lm-suppress-shortcuts', 'true');
    }
    for (const control of document.querySelectorAll('.widget-dropdown > select, .widget-text > input')) {
      describe(control, control.id && document.querySelector('label[for="' + control.id + '"]'));
      control.setAttribute('data-lm-suppress-shortcuts', 'true');
    }
    for (const box of document.querySelectorAll('.widget-checkbox input[type="checkbox"]')) {
      describe(box, box.closest('label'));
    }
  };
  if (!document.getElementById('course-utils-a11y-style')) {
    // ipywidgets marks a focused handle only by filling it; add a ring that stays visible on any theme.
    const style = document.createElement('style');
    style.id = 'course-utils-a11y-style';
    style.textContent = '.widget-slider .noUi-handle:focus-visible, .jp-OutputArea-output [role="region"][tabindex]:focus-visible'
      + ' { outline: 2px solid var(--jp-brand-color1, #1976d2); outline-offset: 2px; }';
    document.head.appendChild(style);
  }
  // A widget's HTML output is redrawn whole when a control changes it. If the learner's focus
  // was in it (on a scroll region), focus would fall back to the page: give it to the region
  // that replaced it, scrolled as far as the old one was.
  const restoreFocus = () => {
    const last = state.lastFocus;
    if (!last || last.element.isConnected || !last.container.isConnected) return;
    if (document.activeElement && document.activeElement !== document.body) return;
    const twin = last.container.querySelector(last.selector);
    if (twin) { twin.focus({preventScroll: true}); twin.scrollTop = last.scrollTop; }
  };
  const scanAndRestore = () => { scan(); restoreFocus(); };
  if (!state.observer) {
    document.addEventListener('focusin', event => {
      const element = event.target;
      const container = element.closest && element.closest('.widget-html');
      state.lastFocus = container && element.matches('[role="region"][tabindex]')
        ? {element, container, selector: '[role="region"][tabindex]', scrollTop: element.scrollTop} : null;
    });
    document.addEventListener('scroll', event => {
      if (state.lastFocus && event.target === state.lastFocus.element) state.lastFocus.scrollTop = event.target.scrollTop;
    }, true);
    state.observer = new MutationObserver(() => {
      restoreFocus();  // at once, before the learner's next key press lands on the page
      if (!state.pending) { state.pending = true; requestAnimationFrame(scanAndRestore); }
    });
    state.observer.observe(document.body, {childList: true, subtree: true});
  }
  scan();
})();
