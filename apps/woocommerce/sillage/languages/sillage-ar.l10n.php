<?php
/**
 * Arabic translations, as WordPress 6.5+ reads them (the same as sillage-ar.po).
 *
 * @package Sillage
 */

defined( 'ABSPATH' ) || exit;

return array(
	'project-id-version' => 'Sillage Scent Quiz 0.1.0',
	'domain'             => 'sillage',
	'language'           => 'ar',
	'plural-forms'       => 'nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);',
	'messages'           => array(
		'Sillage Scent Quiz' => 'Sillage – اختبار العطور',
		'A short perfume quiz on your WooCommerce store that recommends perfumes from your own catalogue, in Arabic or English. Connect the store once; products, orders and purchases reach Sillage on their own.' => 'اختبار قصير للعطور في متجر ووكومرس يقترح على عملائك عطورًا من منتجات متجرك، بالعربية أو الإنجليزية. اربط المتجر مرة واحدة، وتصل المنتجات والطلبات والمشتريات إلى Sillage تلقائيًا.',
		'Sillage Scent Quiz needs WooCommerce. Install and activate WooCommerce, then connect your store from WooCommerce → Sillage.' => 'يحتاج Sillage – اختبار العطور إلى ووكومرس. ثبّت ووكومرس وفعّله، ثم اربط متجرك من ووكومرس ← Sillage.',
		'Sillage scent quiz' => 'اختبار العطور Sillage',
		'Sillage' => 'Sillage',
		'Settings' => 'الإعدادات',
		'This store uses Sillage to recommend perfumes through a short quiz. The quiz runs in your browser and sends your answers to the Sillage service to find the scents that suit you. When you place an order, its number, total and products are reported to Sillage so the store can see which recommendations helped. The store also shares its products and orders with Sillage, including the contact details in an order, so that recommendations stay in stock and purchases are counted.' => 'يستخدم هذا المتجر Sillage لاقتراح العطور من خلال اختبار قصير. يعمل الاختبار في متصفحك ويرسل إجاباتك إلى خدمة Sillage لإيجاد العطور التي تناسبك. عند إتمام طلب، يُرسَل رقمه وإجماليه ومنتجاته إلى Sillage ليعرف المتجر أيّ الاقتراحات كانت مفيدة. ويشارك المتجر أيضًا منتجاته وطلباته مع Sillage، بما فيها بيانات التواصل الواردة في الطلب، لتبقى الاقتراحات من المنتجات المتوفرة وتُحتسب المشتريات.',
		'You are not allowed to connect this store.' => 'ليست لديك صلاحية ربط هذا المتجر.',
		'The store was not connected: access to the store was not approved. Press "Connect" to try again.' => 'لم يُربط المتجر: لم تتم الموافقة على الوصول إلى المتجر. اضغط «ربط» للمحاولة مرة أخرى.',
		'Connected. The quiz now appears on your store, and Sillage receives your products and orders.' => 'تم الربط. يظهر الاختبار الآن في متجرك، وتصل منتجاتك وطلباتك إلى Sillage.',
		'The address Sillage sent you back with is incomplete. Press "Connect" again.' => 'العنوان الذي أعادك به Sillage غير مكتمل. اضغط «ربط» مرة أخرى.',
		'This connection has expired or was already used. Press "Connect" again.' => 'انتهت صلاحية طلب الربط هذا أو سبق استخدامه. اضغط «ربط» مرة أخرى.',
		'Enter the address of your Sillage service first.' => 'أدخل عنوان خدمة Sillage أولًا.',
		'The Sillage service could not be reached: %s' => 'تعذّر الوصول إلى خدمة Sillage: %s',
		'Connected, but the webhooks that send your products and orders to Sillage could not be created: %s. Press "Connect again" to retry.' => 'تم الربط، لكن تعذّر إنشاء خطافات الويب (Webhooks) التي ترسل منتجاتك وطلباتك إلى Sillage: %s. اضغط «إعادة الربط» للمحاولة مرة أخرى.',
		'The Sillage service answered, but its answer could not be used (%s). Check the service address, then press "Connect" again.' => 'ردّت خدمة Sillage، لكن تعذّر استخدام ردّها (%s). تحقّق من عنوان الخدمة، ثم اضغط «ربط» مرة أخرى.',
		'The Sillage service refused the connection (HTTP %d).' => 'رفضت خدمة Sillage الربط (رمز HTTP %d).',
		'%1$s (code: %2$s)' => '%1$s (الرمز: %2$s)',
		'WooCommerce is not active' => 'ووكومرس غير مفعّل',
		'WooCommerce did not save every webhook' => 'لم يحفظ ووكومرس جميع خطافات الويب',
		'HTTP %d' => 'رمز HTTP %d',
		'Disconnect the store before changing the address of the Sillage service.' => 'ألغِ ربط المتجر قبل تغيير عنوان خدمة Sillage.',
		'This is not a valid address. Enter the full https address of your Sillage service, for example https://sillage.example' => 'هذا العنوان غير صالح. أدخل عنوان خدمة Sillage كاملًا بادئًا بـ https، مثل https://sillage.example',
		'Saved.' => 'تم الحفظ.',
		'Disconnected. The quiz no longer appears on your store, but the Sillage service could not be told (%s): remove the store from your Sillage console too.' => 'تم إلغاء الربط ولم يعد الاختبار يظهر في متجرك، لكن تعذّر إبلاغ خدمة Sillage (%s): احذف المتجر من لوحة تحكم Sillage أيضًا.',
		'Disconnected. The quiz no longer appears on your store.' => 'تم إلغاء الربط. لم يعد الاختبار يظهر في متجرك.',
		'Sillage adds a short perfume quiz to your store: your shoppers answer a few questions and get the perfumes from your catalogue that suit them, in Arabic or English.' => 'يضيف Sillage إلى متجرك اختبارًا قصيرًا للعطور: يجيب عملاؤك عن بضعة أسئلة، فيحصلون على العطور التي تناسبهم من منتجات متجرك، بالعربية أو الإنجليزية.',
		'1. Your Sillage service' => '1. خدمة Sillage الخاصة بك',
		'Service address' => 'عنوان الخدمة',
		'To change it, disconnect the store first.' => 'لتغييره، ألغِ ربط المتجر أولًا.',
		'The address you were given with your Sillage account.' => 'العنوان الذي حصلت عليه مع حسابك في Sillage.',
		'Save' => 'حفظ',
		'2. Connect your store' => '2. اربط متجرك',
		'When you press "Connect", you go to Sillage, then back to your own store, where WooCommerce asks you to give Sillage read-only access. Sillage can read your products and orders; it cannot change anything in your store.' => 'عند الضغط على «ربط» تنتقل إلى Sillage ثم تعود إلى متجرك، حيث يطلب منك ووكومرس منح Sillage صلاحية القراءة فقط. يستطيع Sillage قراءة منتجاتك وطلباتك، ولا يستطيع تغيير أي شيء في متجرك.',
		'Connect' => 'ربط',
		'Enter and save the service address first.' => 'أدخل عنوان الخدمة واحفظه أولًا.',
		'Connected' => 'متصل',
		'store %s' => 'المتجر %s',
		'Open your Sillage console' => 'افتح لوحة تحكم Sillage',
		'Some of the webhooks that send your products and orders to Sillage are missing or paused. Press "Connect again" to create them again.' => 'بعض خطافات الويب (Webhooks) التي ترسل منتجاتك وطلباتك إلى Sillage مفقودة أو متوقفة. اضغط «إعادة الربط» لإنشائها من جديد.',
		'Connect again' => 'إعادة الربط',
		'Disconnect the store from Sillage? The quiz will no longer appear on your store.' => 'هل تريد إلغاء ربط المتجر بـ Sillage؟ لن يظهر الاختبار في متجرك بعد ذلك.',
		'Disconnect' => 'إلغاء الربط',
		'You are not allowed to change the Sillage settings.' => 'ليست لديك صلاحية تغيير إعدادات Sillage.',
	),
);
