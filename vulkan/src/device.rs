//! The Vulkan side, run inside the worker process: one instance, one physical device, one
//! compute queue, one command buffer and fence. Each job gets its own shader module, layouts,
//! pipeline, descriptor pool and images, destroyed when it finishes; storage buffers are
//! host-visible, persistently mapped, and reused across jobs (grown when a job needs more).
//!
//! The loader is opened at run time (`ash::Entry::load`), so nothing here is linked against
//! libvulkan: without it, [`Device::open`] is an error naming the packages to install.
//!
//! After a fence timeout or a lost device the device is unusable (the shader may still be
//! running on the driver's threads), so the worker stops and the client kills it; nothing
//! here tries to recover.

use crate::job::{
    DeviceInfo, FloatControls, Image, IntWidths, Job, Output, Resource, RunError, Subgroups,
    Timings,
};
use ash::vk;
use std::ffi::CStr;
use std::time::{Duration, Instant};

/// What to install when there is no loader or no device.
pub const INSTALL_HINT: &str =
    "install a Vulkan loader and driver, e.g. `apt-get install libvulkan1 mesa-vulkan-drivers` \
     (lavapipe, Mesa's CPU driver)";

/// An open device with the objects every job reuses.
pub struct Device {
    // Kept alive: the loader library must outlive every function pointer.
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    memory: vk::PhysicalDeviceMemoryProperties,
    command_pool: vk::CommandPool,
    commands: vk::CommandBuffer,
    fence: vk::Fence,
    sampler: vk::Sampler,
    /// Storage buffers, the `i`th serving a job's `i`th buffer binding.
    buffers: Vec<HostBuffer>,
    /// Texel upload buffer.
    staging: Option<HostBuffer>,
    info: DeviceInfo,
    /// `VK_KHR_pipeline_executable_properties`, when the device has it (compile-only jobs).
    executable_properties: Option<ash::khr::pipeline_executable_properties::Device>,
}

/// A host-visible, host-coherent buffer mapped for its whole life.
struct HostBuffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    bytes: u64,
    mapped: *mut u32,
}

/// The objects one job creates; destroyed together.
#[derive(Default)]
pub(crate) struct JobObjects {
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    pipeline_layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    /// The cache a compile-only pipeline is created in (null for dispatched jobs), whose data
    /// is what the driver serialises of it: turnip's holds ir3's machine code.
    pipeline_cache: vk::PipelineCache,
    descriptor_pool: vk::DescriptorPool,
    images: Vec<(vk::Image, vk::DeviceMemory, vk::ImageView)>,
}

fn failed(call: &str, r: vk::Result) -> RunError {
    match r {
        vk::Result::ERROR_DEVICE_LOST => RunError::DeviceLost(call.to_string()),
        other => RunError::Failed(format!("{call}: {other}")),
    }
}

fn c_text(s: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    s.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Device {
    /// Loads the Vulkan loader and opens physical device `index` with one compute queue.
    pub fn open(index: u32) -> Result<Device, RunError> {
        // SAFETY: loading the system's Vulkan loader runs its initialisers; that is what the
        // library is for, and we call it once per process before any other Vulkan call.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| {
            RunError::NoVulkan(format!(
                "cannot load the Vulkan loader (libvulkan.so.1): {e}; {INSTALL_HINT}"
            ))
        })?;
        // SAFETY: `entry` is a loaded loader; the query has no preconditions.
        let instance_version = unsafe { entry.try_enumerate_instance_version() }
            .ok()
            .flatten()
            .unwrap_or(vk::API_VERSION_1_0);
        let api = if instance_version >= vk::API_VERSION_1_2 {
            vk::API_VERSION_1_2
        } else {
            vk::API_VERSION_1_0
        };
        let app = vk::ApplicationInfo::default()
            .application_name(c"gpufuzz")
            .api_version(api);
        let create = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: `create` and `app` are valid for the call; no allocator.
        let instance = unsafe { entry.create_instance(&create, None) }
            .map_err(|e| RunError::NoVulkan(format!("vkCreateInstance: {e}; {INSTALL_HINT}")))?;
        let picked = pick(&instance, index, api);
        let (physical, family, mut info) = match picked {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: nothing created from `instance` is alive.
                unsafe { instance.destroy_instance(None) };
                return Err(e);
            }
        };
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        // Compile-only jobs read what the driver built through this extension.
        let capture = has_extension(
            &instance,
            physical,
            ash::khr::pipeline_executable_properties::NAME,
        );
        let mut extensions = Vec::new();
        if capture {
            extensions.push(ash::khr::pipeline_executable_properties::NAME.as_ptr());
        }
        let mut capture_feature =
            vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
        let offered = subgroup_features(&instance, physical, api);
        let mut size_control = vk::PhysicalDeviceSubgroupSizeControlFeaturesEXT::default()
            .subgroup_size_control(true)
            .compute_full_subgroups(true);
        let mut reconvergence = vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR::default()
            .shader_maximal_reconvergence(true);
        let core = vk::PhysicalDeviceFeatures::default()
            .shader_int16(info.ints.int16)
            .shader_int64(info.ints.int64);
        let mut create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&core);
        if capture {
            create = create.push_next(&mut capture_feature);
        }
        if offered.size_control {
            extensions.push(ash::ext::subgroup_size_control::NAME.as_ptr());
            create = create.push_next(&mut size_control);
        }
        if offered.maximal_reconvergence {
            extensions.push(ash::khr::shader_maximal_reconvergence::NAME.as_ptr());
            create = create.push_next(&mut reconvergence);
        }
        create = create.enabled_extension_names(&extensions);
        info.subgroups.size_control &= offered.size_control;
        info.subgroups.maximal_reconvergence = offered.maximal_reconvergence;
        // SAFETY: `physical` belongs to `instance`; `create` borrows live arrays.
        let device = match unsafe { instance.create_device(physical, &create, None) } {
            Ok(d) => d,
            Err(e) => {
                // SAFETY: nothing created from `instance` is alive.
                unsafe { instance.destroy_instance(None) };
                return Err(failed("vkCreateDevice", e));
            }
        };
        // SAFETY: `physical` belongs to `instance`.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        let executable_properties = capture
            .then(|| ash::khr::pipeline_executable_properties::Device::new(&instance, &device));
        let mut d = Device {
            _entry: entry,
            instance,
            // SAFETY: queue 0 of `family` was requested at device creation.
            queue: unsafe { device.get_device_queue(family, 0) },
            device,
            memory,
            command_pool: vk::CommandPool::null(),
            commands: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            sampler: vk::Sampler::null(),
            buffers: Vec::new(),
            staging: None,
            info,
            executable_properties,
        };
        // On failure `Drop` destroys whatever was created (null handles are ignored).
        d.create_shared(family)?;
        Ok(d)
    }

    fn create_shared(&mut self, family: u32) -> Result<(), RunError> {
        let pool = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY (this function): `self.device` is live and every create info is valid for
        // its call; the handles are stored in `self` and destroyed in `Drop`.
        unsafe {
            self.command_pool = self
                .device
                .create_command_pool(&pool, None)
                .map_err(|e| failed("vkCreateCommandPool", e))?;
            let alloc = vk::CommandBufferAllocateInfo::default()
                .command_pool(self.command_pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            self.commands = self
                .device
                .allocate_command_buffers(&alloc)
                .map_err(|e| failed("vkAllocateCommandBuffers", e))?[0];
            self.fence = self
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(|e| failed("vkCreateFence", e))?;
            let sampler = vk::SamplerCreateInfo::default()
                .mag_filter(vk::Filter::NEAREST)
                .min_filter(vk::Filter::NEAREST)
                .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                .address_mode_u(vk::SamplerAddressMode::REPEAT)
                .address_mode_v(vk::SamplerAddressMode::REPEAT)
                .address_mode_w(vk::SamplerAddressMode::REPEAT)
                .min_lod(0.0)
                .max_lod(vk::LOD_CLAMP_NONE);
            self.sampler = self
                .device
                .create_sampler(&sampler, None)
                .map_err(|e| failed("vkCreateSampler", e))?;
        }
        Ok(())
    }

    /// The device and driver.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Runs `job`, waiting at most `timeout` for the dispatch to finish.
    pub fn run(&mut self, job: &Job, timeout: Duration) -> Result<Output, RunError> {
        check(job)?;
        let mut objects = JobObjects::default();
        let result = self.run_with(job, timeout, &mut objects);
        match &result {
            // The GPU may still be using the objects: leave them (the worker is about to be
            // killed) rather than destroy what is in use.
            Err(RunError::Timeout(_) | RunError::DeviceLost(_)) => {}
            _ => self.destroy(objects),
        }
        result
    }

    fn run_with(
        &mut self,
        job: &Job,
        timeout: Duration,
        objects: &mut JobObjects,
    ) -> Result<Output, RunError> {
        let started = Instant::now();
        self.create_pipeline(job, objects, vk::PipelineCreateFlags::empty())?;
        let pipeline = started.elapsed();
        let started = Instant::now();
        let set = self.bind_resources(job, objects)?;
        self.record_and_submit(job, objects, set)?;
        // SAFETY: the fence was submitted with the command buffer above.
        let waited = unsafe {
            self.device.wait_for_fences(
                &[self.fence],
                true,
                u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX),
            )
        };
        match waited {
            Ok(()) => {}
            Err(vk::Result::TIMEOUT) => return Err(RunError::Timeout(timeout)),
            Err(e) => return Err(failed("vkWaitForFences", e)),
        }
        let buffers = self.read_back(job);
        Ok(Output {
            buffers,
            timings: Timings {
                pipeline,
                dispatch: started.elapsed(),
            },
        })
    }

    /// `VK_KHR_pipeline_executable_properties`' functions, if the device has the extension.
    pub(crate) fn executable_properties(
        &self,
    ) -> Option<&ash::khr::pipeline_executable_properties::Device> {
        self.executable_properties.as_ref()
    }

    /// Creates `job`'s pipeline with `flags` and nothing else; the caller destroys the
    /// objects with [`Device::destroy_objects`].
    pub(crate) fn create_pipeline_only(
        &mut self,
        job: &Job,
        flags: vk::PipelineCreateFlags,
    ) -> Result<(vk::Pipeline, JobObjects), RunError> {
        check(job)?;
        // SAFETY: `self.device` is live; the cache lands in `o` and is destroyed with it.
        let pipeline_cache = unsafe {
            self.device
                .create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
                .map_err(|e| failed("vkCreatePipelineCache", e))?
        };
        let mut o = JobObjects {
            pipeline_cache,
            ..JobObjects::default()
        };
        match self.create_pipeline(job, &mut o, flags) {
            Ok(()) => Ok((o.pipeline, o)),
            Err(e) => {
                self.destroy(o);
                Err(e)
            }
        }
    }

    /// Destroys what [`Device::create_pipeline_only`] created.
    pub(crate) fn destroy_objects(&self, o: JobObjects) {
        self.destroy(o);
    }

    /// The data of a compile-only job's pipeline cache (`vkGetPipelineCacheData`).
    pub(crate) fn pipeline_cache_data(&self, o: &JobObjects) -> Result<Vec<u8>, RunError> {
        // SAFETY: the cache is live (created with `o`, destroyed only with it).
        unsafe { self.device.get_pipeline_cache_data(o.pipeline_cache) }
            .map_err(|e| failed("vkGetPipelineCacheData", e))
    }

    fn create_pipeline(
        &mut self,
        job: &Job,
        o: &mut JobObjects,
        flags: vk::PipelineCreateFlags,
    ) -> Result<(), RunError> {
        let refusal = job
            .subgroup_size
            .and_then(|s| self.info.subgroups.size_refusal(s));
        if let Some(why) = refusal {
            return Err(RunError::Failed(format!(
                "the device cannot run this job's subgroups: {why}"
            )));
        }
        let module = vk::ShaderModuleCreateInfo::default().code(&job.spirv);
        let layout_bindings: Vec<_> = job
            .bindings
            .iter()
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(descriptor_type(&b.resource))
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let set_layout = vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings);
        // SAFETY (this block): `self.device` is live; each create info borrows data that
        // lives across its call; every handle lands in `o` and is destroyed by `destroy`.
        unsafe {
            o.module = self
                .device
                .create_shader_module(&module, None)
                .map_err(|e| RunError::PipelineCreation(format!("vkCreateShaderModule: {e}")))?;
            o.set_layout = self
                .device
                .create_descriptor_set_layout(&set_layout, None)
                .map_err(|e| failed("vkCreateDescriptorSetLayout", e))?;
            let set_layouts = [o.set_layout];
            let layout = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
            o.pipeline_layout = self
                .device
                .create_pipeline_layout(&layout, None)
                .map_err(|e| failed("vkCreatePipelineLayout", e))?;
            let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfoEXT::default();
            let mut stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(o.module)
                .name(c"main");
            if let Some(size) = job.subgroup_size {
                required = required.required_subgroup_size(size);
                stage = stage
                    .flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS_EXT)
                    .push_next(&mut required);
            }
            let create = [vk::ComputePipelineCreateInfo::default()
                .flags(flags)
                .stage(stage)
                .layout(o.pipeline_layout)];
            o.pipeline = match self
                .device
                .create_compute_pipelines(o.pipeline_cache, &create, None)
            {
                Ok(p) => p[0],
                Err((_, vk::Result::ERROR_DEVICE_LOST)) => {
                    return Err(RunError::DeviceLost("vkCreateComputePipelines".into()))
                }
                Err((_, e)) => {
                    return Err(RunError::PipelineCreation(format!(
                        "vkCreateComputePipelines: {e}"
                    )))
                }
            };
        }
        Ok(())
    }

    /// Fills the storage buffers, creates and fills the images, writes the descriptor set.
    fn bind_resources(
        &mut self,
        job: &Job,
        o: &mut JobObjects,
    ) -> Result<vk::DescriptorSet, RunError> {
        let count = |image: bool| {
            job.bindings
                .iter()
                .filter(|b| matches!(b.resource, Resource::Image(_)) == image)
                .count() as u32
        };
        let mut sizes = Vec::new();
        for (ty, n) in [
            (vk::DescriptorType::STORAGE_BUFFER, count(false)),
            (vk::DescriptorType::COMBINED_IMAGE_SAMPLER, count(true)),
        ] {
            if n > 0 {
                sizes.push(vk::DescriptorPoolSize::default().ty(ty).descriptor_count(n));
            }
        }
        let pool = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        // SAFETY: `self.device` is live; the pool lands in `o` and is destroyed with it.
        let set = unsafe {
            o.descriptor_pool = self
                .device
                .create_descriptor_pool(&pool, None)
                .map_err(|e| failed("vkCreateDescriptorPool", e))?;
            let layouts = [o.set_layout];
            let alloc = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(o.descriptor_pool)
                .set_layouts(&layouts);
            self.device
                .allocate_descriptor_sets(&alloc)
                .map_err(|e| failed("vkAllocateDescriptorSets", e))?[0]
        };
        let texel_bytes: usize = job
            .bindings
            .iter()
            .filter_map(|b| match &b.resource {
                Resource::Image(img) => Some(img.texels.len() * 4),
                Resource::Buffer(_) => None,
            })
            .sum();
        if texel_bytes > 0 {
            let staging = self.staging.take();
            self.staging = Some(self.grown(staging, texel_bytes as u64)?);
        }
        let mut buffer_infos = Vec::new();
        let mut image_infos = Vec::new();
        let mut staged = 0usize;
        for b in &job.bindings {
            match &b.resource {
                Resource::Buffer(words) => {
                    let i = buffer_infos.len();
                    let bytes = (words.len().max(1) * 4) as u64;
                    let old = (i < self.buffers.len()).then(|| self.buffers.remove(i));
                    let buffer = self.grown(old, bytes)?;
                    // SAFETY: `mapped` covers `buffer.bytes >= bytes` bytes of coherent
                    // memory no submitted work uses (the previous job's fence was waited on).
                    unsafe {
                        let dst = std::slice::from_raw_parts_mut(buffer.mapped, words.len());
                        dst.copy_from_slice(words);
                    }
                    buffer_infos.push((
                        b.binding,
                        vk::DescriptorBufferInfo::default()
                            .buffer(buffer.buffer)
                            .offset(0)
                            .range(bytes),
                    ));
                    self.buffers.insert(i, buffer);
                }
                Resource::Image(img) => {
                    let staging = self.staging.as_ref().expect("staging sized above");
                    // SAFETY: the staging buffer holds `texel_bytes` bytes, the sum of every
                    // image's texels, and no submitted work uses it.
                    unsafe {
                        let dst = std::slice::from_raw_parts_mut(
                            staging.mapped.add(staged),
                            img.texels.len(),
                        );
                        dst.copy_from_slice(&img.texels);
                    }
                    let view = self.create_image(img, o)?;
                    image_infos.push((
                        b.binding,
                        staged,
                        vk::DescriptorImageInfo::default()
                            .sampler(self.sampler)
                            .image_view(view)
                            .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL),
                    ));
                    staged += img.texels.len();
                }
            }
        }
        let mut writes = Vec::new();
        for (binding, info) in &buffer_infos {
            writes.push(
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(*binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(std::slice::from_ref(info)),
            );
        }
        for (binding, _, info) in &image_infos {
            writes.push(
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(*binding)
                    .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                    .image_info(std::slice::from_ref(info)),
            );
        }
        // SAFETY: every write names live objects and borrows infos that outlive the call.
        unsafe { self.device.update_descriptor_sets(&writes, &[]) };
        Ok(set)
    }

    /// Creates one image with its memory and view (kept in `o`); returns the view.
    fn create_image(&mut self, img: &Image, o: &mut JobObjects) -> Result<vk::ImageView, RunError> {
        let create = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk::Format::R32G32B32A32_UINT)
            .extent(vk::Extent3D {
                width: img.width,
                height: img.height,
                depth: 1,
            })
            .mip_levels(img.levels)
            .array_layers(img.layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY (this block): `self.device` is live; the image, its memory and view are
        // pushed to `o` as soon as each exists, and destroyed with it.
        unsafe {
            let image = self
                .device
                .create_image(&create, None)
                .map_err(|e| failed("vkCreateImage", e))?;
            o.images
                .push((image, vk::DeviceMemory::null(), vk::ImageView::null()));
            let slot = o.images.len() - 1;
            let needs = self.device.get_image_memory_requirements(image);
            let memory = self.allocate(needs, vk::MemoryPropertyFlags::empty())?;
            o.images[slot].1 = memory;
            self.device
                .bind_image_memory(image, memory, 0)
                .map_err(|e| failed("vkBindImageMemory", e))?;
            let view = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D_ARRAY)
                .format(vk::Format::R32G32B32A32_UINT)
                .subresource_range(whole(img));
            let view = self
                .device
                .create_image_view(&view, None)
                .map_err(|e| failed("vkCreateImageView", e))?;
            o.images[slot].2 = view;
            Ok(view)
        }
    }

    fn record_and_submit(
        &mut self,
        job: &Job,
        o: &JobObjects,
        set: vk::DescriptorSet,
    ) -> Result<(), RunError> {
        let d = &self.device;
        let cmd = self.commands;
        // SAFETY (this block): `cmd` is our only command buffer, not pending (the previous
        // job's fence was waited on), and every object recorded is live until the fence
        // signals.
        unsafe {
            d.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())
                .map_err(|e| failed("vkResetCommandBuffer", e))?;
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            d.begin_command_buffer(cmd, &begin)
                .map_err(|e| failed("vkBeginCommandBuffer", e))?;
            let images = job.bindings.iter().filter_map(|b| match &b.resource {
                Resource::Image(img) => Some(img),
                Resource::Buffer(_) => None,
            });
            let mut staged = 0u64;
            for (img, &(image, _, _)) in images.zip(&o.images) {
                let to_transfer = image_barrier(image, img)
                    .src_access_mask(vk::AccessFlags::empty())
                    .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL);
                d.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[to_transfer],
                );
                let mut regions = Vec::new();
                for level in 0..img.levels {
                    let (w, h) = img.level_size(level);
                    regions.push(
                        vk::BufferImageCopy::default()
                            .buffer_offset(staged)
                            .image_subresource(vk::ImageSubresourceLayers {
                                aspect_mask: vk::ImageAspectFlags::COLOR,
                                mip_level: level,
                                base_array_layer: 0,
                                layer_count: img.layers,
                            })
                            .image_extent(vk::Extent3D {
                                width: w,
                                height: h,
                                depth: 1,
                            }),
                    );
                    staged += u64::from(w) * u64::from(h) * 16 * u64::from(img.layers);
                }
                let staging = self.staging.as_ref().expect("staging exists with images");
                d.cmd_copy_buffer_to_image(
                    cmd,
                    staging.buffer,
                    image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &regions,
                );
                let to_shader = image_barrier(image, img)
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .dst_access_mask(vk::AccessFlags::SHADER_READ)
                    .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                    .new_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL);
                d.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[to_shader],
                );
            }
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, o.pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                o.pipeline_layout,
                0,
                &[set],
                &[],
            );
            let [x, y, z] = job.workgroups;
            d.cmd_dispatch(cmd, x, y, z);
            let to_host = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
            d.end_command_buffer(cmd)
                .map_err(|e| failed("vkEndCommandBuffer", e))?;
            d.reset_fences(&[self.fence])
                .map_err(|e| failed("vkResetFences", e))?;
            let cmds = [cmd];
            let submit = vk::SubmitInfo::default().command_buffers(&cmds);
            d.queue_submit(self.queue, &[submit], self.fence)
                .map_err(|e| failed("vkQueueSubmit", e))?;
        }
        Ok(())
    }

    fn read_back(&self, job: &Job) -> Vec<Vec<u32>> {
        let buffers = job.bindings.iter().filter_map(|b| match &b.resource {
            Resource::Buffer(words) => Some(words.len()),
            Resource::Image(_) => None,
        });
        buffers
            .zip(&self.buffers)
            .map(|(len, buffer)| {
                // SAFETY: the fence has signalled and a host barrier made the shader's
                // writes visible; the mapping covers at least `len` words.
                unsafe { std::slice::from_raw_parts(buffer.mapped, len).to_vec() }
            })
            .collect()
    }

    /// `old` if it holds `bytes`, else a new buffer of at least `bytes` (old one destroyed).
    fn grown(&mut self, old: Option<HostBuffer>, bytes: u64) -> Result<HostBuffer, RunError> {
        if let Some(b) = old {
            if b.bytes >= bytes {
                return Ok(b);
            }
            self.destroy_buffer(b);
        }
        let bytes = bytes.next_power_of_two().max(256);
        let create = vk::BufferCreateInfo::default()
            .size(bytes)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY (this block): `self.device` is live; on failure what was created is
        // destroyed before returning.
        unsafe {
            let buffer = self
                .device
                .create_buffer(&create, None)
                .map_err(|e| failed("vkCreateBuffer", e))?;
            let needs = self.device.get_buffer_memory_requirements(buffer);
            let flags =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let memory = match self.allocate(needs, flags) {
                Ok(m) => m,
                Err(e) => {
                    self.device.destroy_buffer(buffer, None);
                    return Err(e);
                }
            };
            let mapped = self
                .device
                .bind_buffer_memory(buffer, memory, 0)
                .and_then(|()| {
                    self.device
                        .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                });
            match mapped {
                Ok(ptr) => Ok(HostBuffer {
                    buffer,
                    memory,
                    bytes,
                    mapped: ptr.cast(),
                }),
                Err(e) => {
                    self.device.destroy_buffer(buffer, None);
                    self.device.free_memory(memory, None);
                    Err(failed("vkMapMemory", e))
                }
            }
        }
    }

    fn allocate(
        &self,
        needs: vk::MemoryRequirements,
        flags: vk::MemoryPropertyFlags,
    ) -> Result<vk::DeviceMemory, RunError> {
        let types = &self.memory.memory_types[..self.memory.memory_type_count as usize];
        let index = types
            .iter()
            .enumerate()
            .position(|(i, t)| {
                needs.memory_type_bits & (1 << i) != 0 && t.property_flags.contains(flags)
            })
            .ok_or_else(|| RunError::Failed(format!("no memory type with {flags:?}")))?;
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(needs.size)
            .memory_type_index(index as u32);
        // SAFETY: `self.device` is live and the memory type index is valid for it.
        unsafe { self.device.allocate_memory(&alloc, None) }
            .map_err(|e| failed("vkAllocateMemory", e))
    }

    fn destroy_buffer(&self, b: HostBuffer) {
        // SAFETY: no pending work uses `b` (callers run after a fence wait or in `Drop`).
        unsafe {
            self.device.destroy_buffer(b.buffer, None);
            self.device.free_memory(b.memory, None);
        }
    }

    fn destroy(&self, o: JobObjects) {
        let d = &self.device;
        // SAFETY: the job's work finished (fence waited on) or was never submitted; null
        // handles are ignored by the destroy calls.
        unsafe {
            for (image, memory, view) in o.images {
                d.destroy_image_view(view, None);
                d.destroy_image(image, None);
                d.free_memory(memory, None);
            }
            d.destroy_descriptor_pool(o.descriptor_pool, None);
            d.destroy_pipeline(o.pipeline, None);
            d.destroy_pipeline_cache(o.pipeline_cache, None);
            d.destroy_pipeline_layout(o.pipeline_layout, None);
            d.destroy_descriptor_set_layout(o.set_layout, None);
            d.destroy_shader_module(o.module, None);
        }
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: dropping happens only after the last fence wait succeeded (the worker never
        // drops a device after a timeout; it exits without cleanup), so nothing is in use.
        unsafe {
            let _ = self.device.device_wait_idle();
            for b in std::mem::take(&mut self.buffers)
                .into_iter()
                .chain(self.staging.take())
            {
                self.destroy_buffer(b);
            }
            self.device.destroy_sampler(self.sampler, None);
            self.device.destroy_fence(self.fence, None);
            self.device.destroy_command_pool(self.command_pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Physical device `index`, its first compute queue family, and its description.
fn pick(
    instance: &ash::Instance,
    index: u32,
    api: u32,
) -> Result<(vk::PhysicalDevice, u32, DeviceInfo), RunError> {
    // SAFETY: `instance` is a live instance.
    let physicals = unsafe { instance.enumerate_physical_devices() }
        .map_err(|e| failed("vkEnumeratePhysicalDevices", e))?;
    let Some(&physical) = physicals.get(index as usize) else {
        if physicals.is_empty() {
            return Err(RunError::NoVulkan(format!(
                "the Vulkan loader found no device; {INSTALL_HINT}"
            )));
        }
        let names: Vec<String> = physicals
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                // SAFETY: `p` was enumerated from `instance`.
                let props = unsafe { instance.get_physical_device_properties(p) };
                format!("{i}: {}", c_text(props.device_name_as_c_str()))
            })
            .collect();
        return Err(RunError::NoVulkan(format!(
            "there is no Vulkan device {index}; the devices are {}",
            names.join(", ")
        )));
    };
    let info = device_info(instance, physical, index, api);
    // SAFETY: `physical` belongs to `instance`.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let family = families
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .ok_or_else(|| {
            RunError::NoVulkan(format!(
                "device {index} ({}) has no compute queue",
                info.name
            ))
        })?;
    Ok((physical, family as u32, info))
}

/// Whether `physical` offers device extension `name`.
fn has_extension(instance: &ash::Instance, physical: vk::PhysicalDevice, name: &CStr) -> bool {
    // SAFETY: `physical` belongs to `instance`.
    unsafe { instance.enumerate_device_extension_properties(physical) }
        .map(|exts| exts.iter().any(|e| e.extension_name_as_c_str() == Ok(name)))
        .unwrap_or(false)
}

/// The subgroup features `physical` offers for what a job with subgroup operations needs:
/// the extensions present and their features on (both need Vulkan 1.1's
/// `vkGetPhysicalDeviceFeatures2`, so nothing below the 1.2 instance this runner asks for).
fn subgroup_features(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    api: u32,
) -> Subgroups {
    if api < vk::API_VERSION_1_2 {
        return Subgroups::default();
    }
    let size_ext = has_extension(instance, physical, ash::ext::subgroup_size_control::NAME);
    let reconv_ext = has_extension(
        instance,
        physical,
        ash::khr::shader_maximal_reconvergence::NAME,
    );
    let mut size = vk::PhysicalDeviceSubgroupSizeControlFeaturesEXT::default();
    let mut reconv = vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR::default();
    let mut features = vk::PhysicalDeviceFeatures2::default();
    if size_ext {
        features = features.push_next(&mut size);
    }
    if reconv_ext {
        features = features.push_next(&mut reconv);
    }
    // SAFETY: `physical` belongs to `instance` (Vulkan 1.2); only the structs of extensions
    // the device offers are chained.
    unsafe { instance.get_physical_device_features2(physical, &mut features) };
    Subgroups {
        size_control: size_ext
            && size.subgroup_size_control != 0
            && size.compute_full_subgroups != 0,
        maximal_reconvergence: reconv_ext && reconv.shader_maximal_reconvergence != 0,
        ..Subgroups::default()
    }
}

/// Refuses malformed jobs before any Vulkan call sees them.
fn check(job: &Job) -> Result<(), RunError> {
    if job.workgroups.contains(&0) {
        return Err(RunError::Failed(format!(
            "zero workgroups: {:?}",
            job.workgroups
        )));
    }
    let mut seen = std::collections::HashSet::new();
    for b in &job.bindings {
        if !seen.insert(b.binding) {
            return Err(RunError::Failed(format!("binding {} twice", b.binding)));
        }
        if let Resource::Image(img) = &b.resource {
            let max_levels = 32 - img.width.max(img.height).leading_zeros();
            if img.width == 0 || img.height == 0 || img.layers == 0 || img.levels == 0 {
                return Err(RunError::Failed(format!(
                    "binding {}: empty image",
                    b.binding
                )));
            }
            if img.levels > max_levels {
                return Err(RunError::Failed(format!(
                    "binding {}: {} levels for a {}x{} image",
                    b.binding, img.levels, img.width, img.height
                )));
            }
            if img.texels.len() != img.words_len() {
                return Err(RunError::Failed(format!(
                    "binding {}: {} texel words, the image needs {}",
                    b.binding,
                    img.texels.len(),
                    img.words_len()
                )));
            }
        }
    }
    Ok(())
}

fn descriptor_type(r: &Resource) -> vk::DescriptorType {
    match r {
        Resource::Buffer(_) => vk::DescriptorType::STORAGE_BUFFER,
        Resource::Image(_) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
    }
}

fn whole(img: &Image) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: img.levels,
        base_array_layer: 0,
        layer_count: img.layers,
    }
}

fn image_barrier(image: vk::Image, img: &Image) -> vk::ImageMemoryBarrier<'static> {
    vk::ImageMemoryBarrier::default()
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(whole(img))
}

/// Name, driver and float controls of `physical`; the driver fields and float controls need
/// Vulkan 1.2 on both instance and device and stay empty below it.
fn device_info(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    index: u32,
    api: u32,
) -> DeviceInfo {
    // SAFETY: `physical` belongs to `instance`.
    let props = unsafe { instance.get_physical_device_properties(physical) };
    let v = props.api_version;
    let mut info = DeviceInfo {
        index,
        name: c_text(props.device_name_as_c_str()),
        driver_version: props.driver_version,
        api_version: format!(
            "{}.{}.{}",
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v)
        ),
        ..DeviceInfo::default()
    };
    // SAFETY: `physical` belongs to `instance`.
    let features = unsafe { instance.get_physical_device_features(physical) };
    info.ints = IntWidths {
        int16: features.shader_int16 != 0,
        int64: features.shader_int64 != 0,
    };
    if api < vk::API_VERSION_1_2 || v < vk::API_VERSION_1_2 {
        return info;
    }
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut floats = vk::PhysicalDeviceFloatControlsProperties::default();
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut sizes = vk::PhysicalDeviceSubgroupSizeControlPropertiesEXT::default();
    let size_ext = has_extension(instance, physical, ash::ext::subgroup_size_control::NAME);
    let mut props2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut driver)
        .push_next(&mut floats)
        .push_next(&mut subgroup);
    if size_ext {
        props2 = props2.push_next(&mut sizes);
    }
    // SAFETY: the driver, float-control and subgroup structs are core in Vulkan 1.2, which
    // instance and device have; the size-control one is chained only with its extension.
    unsafe { instance.get_physical_device_properties2(physical, &mut props2) };
    let compute = vk::ShaderStageFlags::COMPUTE;
    info.subgroups = Subgroups {
        min_size: sizes.min_subgroup_size,
        max_size: sizes.max_subgroup_size,
        operations: if subgroup.supported_stages.contains(compute) {
            subgroup.supported_operations.as_raw()
        } else {
            0
        },
        // Narrowed to what the device enables when it is opened.
        size_control: size_ext && sizes.required_subgroup_size_stages.contains(compute),
        maximal_reconvergence: false,
    };
    info.driver_name = c_text(driver.driver_name_as_c_str());
    info.driver_info = c_text(driver.driver_info_as_c_str());
    info.float_controls = FloatControls {
        denorm_preserve: floats.shader_denorm_preserve_float32 != 0,
        denorm_flush_to_zero: floats.shader_denorm_flush_to_zero_float32 != 0,
        signed_zero_inf_nan_preserve: floats.shader_signed_zero_inf_nan_preserve_float32 != 0,
        rounding_mode_rte: floats.shader_rounding_mode_rte_float32 != 0,
    };
    info
}
