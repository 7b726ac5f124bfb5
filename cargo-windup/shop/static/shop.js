// Windup Shop: small enhancements. Every form also works without this script.
(function () {
  'use strict';

  // Home: the deal of the day appears 1.5 s after the page is ready.
  function scheduleDeal() {
    var slot = document.querySelector('[data-deal-link]');
    var section = slot && slot.querySelector('section');
    if (!section) return;
    setTimeout(function () {
      var heading = document.createElement('h2');
      heading.textContent = 'Deal of the day';
      var offer = document.createElement('p');
      offer.textContent = 'Ferris plush for $19.99';
      var link = document.createElement('a');
      link.href = '/products/ferris-plush';
      link.setAttribute('data-testid', slot.getAttribute('data-deal-link'));
      link.textContent = 'See the deal';
      section.replaceChildren(heading, offer, link);
    }, 1500);
  }

  // Cart: check a coupon without leaving the page, behind a busy overlay.
  function enhanceCoupon() {
    var form = document.querySelector('form[data-js="coupon-form"]');
    if (!form) return;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var status = document.getElementById(form.getAttribute('data-status'));
      var totals = document.querySelector('[data-js="cart-totals"]');
      var overlayName = form.getAttribute('data-overlay');
      var overlay = document.createElement('div');
      overlay.id = overlayName;
      overlay.setAttribute('data-testid', overlayName);
      overlay.className = 'overlay';
      overlay.textContent = 'Checking code…';
      document.body.appendChild(overlay);
      fetch('/api/cart/coupon', {
        method: 'POST',
        body: new URLSearchParams(new FormData(form)),
        credentials: 'same-origin',
        headers: { 'Accept': 'application/json' }
      })
        .then(function (response) {
          if (!response.ok) throw new Error('HTTP ' + response.status);
          return response.json();
        })
        .then(function (result) {
          if (totals) totals.innerHTML = result.totals_html;
          if (status) status.textContent = result.message;
        })
        .catch(function () {
          if (status) status.textContent = 'Could not check the code. Please try again.';
        })
        .finally(function () {
          overlay.remove();
        });
    });
  }

  // Checkout: one click, one order.
  function lockSubmitButtons() {
    document.querySelectorAll('form[data-lock-submit]').forEach(function (form) {
      form.addEventListener('submit', function () {
        form.querySelectorAll('button[type="submit"]').forEach(function (button) {
          button.disabled = true;
        });
      });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    scheduleDeal();
    enhanceCoupon();
    lockSubmitButtons();
  });
})();
